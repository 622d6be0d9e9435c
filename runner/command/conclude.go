package command

import (
	"errors"
	"fmt"
	"io"

	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// pumps makes a started attempt's stdout and stderr pumps, their pipes
// not yet set (the read end's descriptor on Unix, an overlapped file on
// Windows), and the guard they share: stdout goes live to stream (wait's
// --watch) or c.Stdout, and is kept whole (a Capture) unless it only goes
// live.
func (c *Command) pumps(st *commandState, stream io.Writer) (stdout, stderr *pump, guard *attemptGuard) {
	window := c.window()
	guard = &attemptGuard{limit: max(c.MaxOutput, 0), kept: output.DefaultMaxKeep}
	live := c.Stdout
	if stream != nil {
		live = stream
	}
	stdout = &pump{name: "stdout", fd: -1, buf: &st.outBuf, live: live, window: window, guard: guard, done: make(chan struct{})}
	if stream == nil && (c.Stdout == nil || c.KeepStdout) {
		stdout.keep = output.NewCapture(c.TempDir, c.spillThreshold(), window)
		stdout.keep.MemoryFallback = c.memoryFallback()
		stdout.keep.TailBuf = &st.tailBuf
	}
	stderr = &pump{name: "stderr", fd: -1, buf: &st.errBuf, live: c.Stderr, window: window, guard: guard, done: make(chan struct{})}
	return stdout, stderr, guard
}

// conclude records the end of a started attempt whose processes are gone
// (its group swept on Unix, its Job Object closed on Windows), the same on
// every OS: what is left in the pipes is read (not forever: a process that
// escaped may hold them), the exit status (255 when the wait failed) and
// the output go into res, and then what guard saw decides the rest: an
// output limit fails the attempt, evaluated as a failure; a stream that
// lost bytes stops the run, unless an interrupt stopped it first.
func (c *Command) conclude(res *runner.Result, p *process, status int, werr error, stdout, stderr *pump, st *commandState, guard *attemptGuard) {
	stdout.finish(pipeDrain)
	stderr.finish(pipeDrain)
	stdout.close()
	stderr.close()

	res.Stopped = p.stoppedBy()
	if werr != nil {
		status = 255 // unknown: someone else reaped it
		res.Err = fmt.Errorf("waiting for %s: %w", c.Argv[0], werr)
	}
	c.finish(res, status, stdout, stderr)
	if err := st.stdin.err(); err != nil {
		guard.fail(&output.StreamError{Stream: "stdin", Keeping: true, Err: err})
	}
	var limit *output.LimitError
	switch problem := guard.problem(); {
	case problem == nil:
	case errors.As(problem, &limit):
		if res.Stopped == problem {
			res.Stopped = nil // a failed attempt, evaluated as such
		}
		res.Failed, res.Err = true, problem
	default: // a *output.StreamError: the run cannot go on without losing output
		var intr *runner.Interrupt
		if !errors.As(res.Stopped, &intr) {
			res.Stopped = problem
		}
	}
}
