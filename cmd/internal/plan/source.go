package plan

import (
	"regexp"
	"strings"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/shellwords"
	"github.com/retry-dev/retry/runner/command"
	"github.com/retry-dev/retry/runner/redact"
)

// source builds the source of p.Kind's attempts: the command, the HTTP
// call or the TCP connect.
//
// live: the attempts' stdout goes to retry's as it comes (run's --stdout).
func (o *Options) source(p *Plan, needJSON, live bool) error {
	switch p.Kind {
	case acceptor.TCPAttempt:
		return o.tcpSource(p)
	case acceptor.HTTPAttempt:
		return o.httpSource(p)
	}
	argv, err := o.argv()
	if err != nil {
		return err
	}
	p.Describe = redact.Argv(argv)
	var pattern *regexp.Regexp
	if o.Accept.ErrorPattern != "" {
		if pattern, err = regexp.Compile(o.Accept.ErrorPattern); err != nil {
			return exit.Usagef("--error-pattern: %q: want an RE2 regular expression: %s", o.Accept.ErrorPattern, regexpProblem(err))
		}
		if pattern.NumSubexp() < 1 {
			return exit.Usagef("--error-pattern: %q: want a regexp with a capture group for the error code, like 'code=(\\w+)'", o.Accept.ErrorPattern)
		}
	}
	killAfter := o.Process.KillAfter
	if killAfter == 0 {
		killAfter = -1 // --kill-after 0: SIGKILL at once
	}
	c := &command.Command{
		Argv:           argv,
		Foreground:     o.Process.Foreground,
		SuperviseEarly: o.Process.SuperviseEarly,
		KillAfter:      killAfter,
		Stdin:          o.IO.StdinFile(),
		Stderr:         p.Stderr.Child(),
		ErrorPattern:   pattern,
		KeepStdout:     needJSON,
		MaxOutput:      o.Output.MaxOutput,
	}
	if live {
		c.Stdout = o.IO.Out
	} else {
		c.HeldFor = o.IO.OutFile() // its reader going away stops an attempt that writes
	}
	p.Final = !live
	p.Source = c
	closeBudget := p.Close
	p.Close = func() { c.Close(); closeBudget() }
	return nil
}

// argv turns the arguments into the command to run: argv as given (always
// so after "--"), one string given without "--" split by shell-word rules,
// or the shell with --shell.
func (o *Options) argv() ([]string, error) {
	args := o.Args
	if len(args) == 0 {
		return nil, exit.Usagef("no command: give COMMAND [ARG...], 'COMMAND STRING', --shell 'STRING' or --url URL")
	}
	if strings.TrimSpace(args[0]) == "" {
		return nil, exit.Usagef("empty command: give COMMAND [ARG...], 'COMMAND STRING', --shell 'STRING' or --url URL")
	}
	if o.Process.Shell {
		if len(args) != 1 {
			return nil, exit.Usagef("--shell: give the shell command as one argument, quoted: --shell 'a && b' (got %d arguments)", len(args))
		}
		return []string{o.Process.ShellPath, "-c", args[0]}, nil
	}
	// One argument with blanks and no "--" before it is a command string;
	// after "--" the words are argv as given ("/dir with space/prog").
	if len(args) == 1 && !o.ArgvAfterDash && strings.ContainsAny(args[0], " \t\n") {
		argv, err := shellwords.Split(args[0])
		if err != nil {
			return nil, exit.Usagef("%v", err)
		}
		return argv, nil
	}
	return args, nil
}
