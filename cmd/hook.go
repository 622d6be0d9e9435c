package cmd

import (
	"strings"

	"github.com/retry-dev/retry/runner/command"
)

// onRetry builds the --on-retry hook: the command string split by
// shell-word rules, or run by the shell with --shell.
func (o *Options) onRetry(p *plan) error {
	if !o.given("on-retry") {
		return nil
	}
	if strings.TrimSpace(o.OnRetry) == "" {
		return usageError("--on-retry: want a command string to run before every retry, like 'rm -f build.lock'")
	}
	argv := []string{o.ShellPath, "-c", o.OnRetry}
	if !o.Shell {
		var err error
		if argv, err = splitCommand(o.OnRetry); err != nil {
			return usageError("--on-retry: %v", err)
		}
	}
	killAfter := o.KillAfter
	if killAfter == 0 {
		killAfter = -1
	}
	h := &command.Hook{
		Argv:        argv,
		MaxAttempts: p.strategy.MaxAttempts,
		Foreground:  o.Foreground,
		KillAfter:   killAfter,
		Stderr:      o.IO.ErrOut,
	}
	p.strategy.OnRetry = h.Run
	return nil
}
