package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/retry-dev/retry/runner"
)

// Hook is the command of --on-retry: it runs before every retry, as an
// attempt does (its own process group, the stop signal then SIGKILL after
// KillAfter, everything reaped), with stdin from /dev/null and both its
// output streams on Stderr, so that retry's stdout keeps only the command's
// output.
//
// Its environment is Env (nil: os.Environ()) with RETRY_ATTEMPT and
// RETRY_MAX_ATTEMPTS of the attempt being retried, RETRY_EXIT_CODE (that
// attempt's exit status; empty for an HTTP call or a TCP connect) and
// RETRY_REASON (the retry's reason: server-side, client-side, throttling,
// timeout).
type Hook struct {
	Argv []string
	Env  []string
	// MaxAttempts is the run's attempt limit (0: unlimited), for
	// RETRY_MAX_ATTEMPTS.
	MaxAttempts int
	Foreground  bool
	KillAfter   time.Duration
	Stderr      io.Writer
}

// Run runs the hook before attempt n, which retries prev. It fits
// Strategy.OnRetry. The result's Err says how the hook failed: it could not
// start, it exited non-zero, or it was stopped (a timeout, the deadline, a
// signal).
func (h *Hook) Run(ctx context.Context, prev *runner.Record, n int) *runner.HookResult {
	env := h.Env
	if env == nil {
		env = os.Environ()
	}
	code := ""
	if a := prev.Result.Attempt; a.HasExitCode() {
		code = strconv.Itoa(a.ExitCode)
	}
	env = append(env[:len(env):len(env)], "RETRY_EXIT_CODE="+code, "RETRY_REASON="+prev.Decision.Directive.Reason())
	c := &Command{
		Argv:       h.Argv,
		hook:       true,
		Env:        env,
		Foreground: h.Foreground,
		KillAfter:  h.KillAfter,
		Stdout:     h.Stderr,
		Stderr:     h.Stderr,
		Window:     4096,
		ParseError: func([]byte) (string, string) { return "", "" },
	}
	if h.Stderr == nil {
		c.Stdout, c.Stderr = io.Discard, io.Discard
	}
	defer c.Close()
	r := c.Attempt(ctx, prev.Number, h.MaxAttempts)
	res := &runner.HookResult{Stopped: r.Stopped}
	a := r.Attempt
	switch {
	case r.Stopped != nil && errors.Is(r.Stopped, runner.ErrAttemptTimeout):
		res.Err = errors.New("timed out (--attempt-timeout)")
	case r.Stopped != nil:
		res.Err = fmt.Errorf("stopped: %w", r.Stopped)
	case a.Err != nil:
		res.Err = a.Err
	case a.ExitCode != 0:
		res.Err = fmt.Errorf("exit status %d", a.ExitCode)
	}
	return res
}
