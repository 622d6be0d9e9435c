package plan

import (
	"strings"

	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/shellwords"
	"github.com/retry-dev/retry/runner/command"
)

// onRetry builds the --on-retry hook: the command string split by
// shell-word rules, or run by the shell with --shell.
func (o *Options) onRetry(p *Plan) error {
	if !o.Given("on-retry") {
		return nil
	}
	if strings.TrimSpace(o.Process.OnRetry) == "" {
		return exit.Usagef("%s: want a command string to run before every retry, like 'rm -f build.lock'", o.flagName("on-retry"))
	}
	argv := shellArgv(o.Process.ShellPath, o.Process.OnRetry)
	if !o.Process.Shell {
		var err error
		if argv, err = shellwords.Split(o.Process.OnRetry); err != nil {
			return exit.Usagef("%s: %v", o.flagName("on-retry"), err)
		}
	}
	killAfter := o.Process.KillAfter
	if killAfter == 0 {
		killAfter = -1
	}
	h := &command.Hook{
		Argv:        argv,
		MaxAttempts: p.Strategy.MaxAttempts,
		Foreground:  o.Process.Foreground,
		KillAfter:   killAfter,
		Stderr:      o.IO.ErrOut,
	}
	p.Strategy.OnRetry = h.Run
	return nil
}
