package plan

import (
	"regexp"
	"strings"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/shellwords"
	"github.com/retry-dev/retry/cmd/internal/sources"
	"github.com/retry-dev/retry/runner/command"
	"github.com/retry-dev/retry/runner/redact"
)

// sourceOptions are a source of sources.Table and its options in this
// invocation.
type sourceOptions struct {
	row  *sources.Source
	opts sources.Options
}

// newSourceOptions returns the options of every source a flag chooses.
func newSourceOptions() []sourceOptions {
	var out []sourceOptions
	for _, s := range sources.Table {
		if s.New != nil {
			out = append(out, sourceOptions{s, s.New()})
		}
	}
	return out
}

// chosen returns the sources the command line chose, in the table's
// order.
func (o *Options) chosen() []sourceOptions {
	var out []sourceOptions
	for _, s := range o.sourceOpts {
		if s.opts.Chosen(o.Given) {
			out = append(out, s)
		}
	}
	return out
}

// sourceOf returns the options of the source of kind k; nil for the
// command's.
func (o *Options) sourceOf(k acceptor.AttemptKind) sources.Options {
	for _, s := range o.sourceOpts {
		if s.row.Kind == k {
			return s.opts
		}
	}
	return nil
}

// sourceContext is what a source is given of the rest of the command
// line; of is the source.
func (o *Options) sourceContext(of *sources.Source) *sources.Context {
	var foreign []string
	for _, s := range o.sourceOpts {
		if s.row != of {
			foreign = append(foreign, s.row.Flags...)
		}
	}
	return &sources.Context{
		Given: o.Given, FlagName: o.flagName, Usagef: exit.Usagef,
		Load:  func(v string) ([]byte, error) { return loadArg(v, o.IO.In) },
		Shell: o.Process.Shell, Foreground: o.Process.Foreground, Foreign: foreign,
		AttemptTimeout: o.Budget.AttemptTimeout, MaxOutput: o.Output.MaxOutput,
	}
}

// source builds the source of p.Kind's attempts: the command, or the
// source of the table a flag chose (the HTTP call, the TCP connect).
//
// live: the attempts' stdout goes to retry's as it comes (run's --stdout).
func (o *Options) source(p *Plan, needJSON, live bool) error {
	if s := o.sourceOf(p.Kind); s != nil {
		row := sources.Of(p.Kind)
		b, err := s.Build(o.sourceContext(row))
		if err != nil {
			return err
		}
		p.Source, p.Describe, p.Final = b.Source, b.Describe, row.Final
		p.Warnings = append(b.Warnings, p.Warnings...)
		if row.Fallback != nil {
			p.Strategy.Chain.Fallback = row.Fallback
		}
		if b.Close != nil {
			closeBudget := p.Close
			p.Close = func() { b.Close(); closeBudget() }
		}
		return nil
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
		return shellArgv(o.Process.ShellPath, args[0]), nil
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
