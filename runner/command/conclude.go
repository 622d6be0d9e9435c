package command

import (
	"errors"
	"fmt"

	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

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
