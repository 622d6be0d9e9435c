package cmd

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// runEnd is how an invocation of run or wait ended, as an error for Main:
// the facts its exit status depends on, which exitStatus maps. It is
// returned even when the status is 0.
type runEnd struct {
	wait  bool                 // retry wait
	kind  acceptor.AttemptKind // what an attempt does
	query bool                 // wait --query
	out   *runner.Outcome      // the run; nil when no attempt was made
	// end is how the run ended: out.End, or for --state the end a
	// sequence is recorded with before it comes (see stateExits, and a
	// scheduled attempt that would be the sequence's last).
	end runner.End
	// final is what writing the last attempt's stdout (or its --query
	// projection) returned.
	final error
	// before is why a --state invocation made no attempt (*notRun, or
	// retry's own error, as an *exit.Error); nil when one was made.
	before error
	// unfinished: the sequence's attempt died with retry (by
	// PR_SET_DEATHSIG's SIGKILL): the status its state is recorded with.
	unfinished bool
	// unrecorded: --state could not record the outcome; the next
	// invocation counts the attempt as unfinished and goes on.
	unrecorded bool
	sinkFailed bool              // a sink (--log-file, --report) could not be written
	signal     *runner.Interrupt // a signal came while the sinks finished
}

func (r *runEnd) Error() string { return fmt.Sprintf("retry ended with exit status %d", exitStatus(r)) }

// Unwrap is the error that kept a --state invocation from an attempt,
// whose message Main writes.
func (r *runEnd) Unwrap() error { return r.before }

// notRun is a --state invocation that made no attempt and is not an
// error of retry's: not due yet, busy, an unreachable store (the next
// invocation tries again), or a sequence that ended (ended: its recorded
// exit status repeated).
type notRun struct {
	ended  bool
	status int // the recorded status of an ended sequence
}

func (*notRun) Error() string { return "" }

// exitStatus is the one place that decides retry's exit status (SPEC
// "Exit status", exit.Help), from how the invocation ended: nil, a usage
// error of cobra's or retry's, a --state invocation that ran nothing, or a
// run (*runEnd).
func exitStatus(err error) int {
	var r *runEnd
	var nr *notRun
	var ee *exit.Error
	switch {
	case err == nil:
		return exit.OK
	case errors.As(err, &r):
		// Below.
	case errors.As(err, &nr):
		if nr.ended {
			return nr.status
		}
		return exit.TempFail
	case errors.As(err, &ee):
		return ee.Code
	default:
		// Cobra's own errors (unknown command, bad arguments) are usage
		// errors.
		return exit.Usage
	}

	// What comes after the run decides first: a signal while the sinks
	// finished (even a sink's wait for a FIFO's reader) ends it with
	// 128+N; a sink that could not be written with 74, as for stdout.
	switch {
	case r.signal != nil:
		return 128 + int(r.signal.Signal)
	case r.sinkFailed:
		return exit.IOError
	case r.before != nil:
		return exitStatus(r.before)
	case r.unrecorded:
		return exit.TempFail
	}

	var last *runner.Record
	if r.out != nil {
		last = r.out.Last()
	}
	code := exit.OK
	switch r.end {
	case runner.EndSuccess:
	case runner.EndInterrupted:
		code = 128 + int(syscall.SIGTERM)
		var intr *runner.Interrupt
		if errors.As(r.out.Err, &intr) {
			code = 128 + int(intr.Signal)
		}
	case runner.EndDeadline:
		code = exit.Timeout
	case runner.EndScheduled:
		code = exit.TempFail
	default:
		// The run failed or gave up (its attempts, an empty bucket, a
		// failure state): run exits with the last attempt's status, wait
		// with 1 for a failure state and 124 when it gave up.
		var broken *output.StreamError
		if r.out != nil && errors.As(r.out.Err, &broken) {
			return exit.ForStream(broken)
		}
		if r.end == runner.EndFailure && last != nil && last.Decision.Usage {
			return exit.Usage // the command line is wrong (k8s: stdout not JSON)
		}
		if r.unfinished && !r.wait && r.kind == acceptor.CommandAttempt {
			return 128 + int(syscall.SIGKILL) // the attempt died with retry
		}
		if r.wait {
			if r.end != runner.EndFailure {
				return exit.Timeout // gave up: attempts, or an empty bucket
			}
			// A command that cannot be executed or was not found, when no
			// acceptor claimed it, exits 126/127 as in run, not 1: it is a
			// broken command line, not a state.
			if last != nil && r.kind == acceptor.CommandAttempt && last.Decision.Source != acceptor.FromAcceptor && last.Decision.Directive == acceptor.Fail {
				if a := last.Result.Attempt; a.NotStarted || a.ExitCode == exit.NotExec || a.ExitCode == exit.NotFound {
					return a.ExitCode
				}
			}
			return exit.Failure
		}
		if last == nil {
			return exit.Failure
		}
		a := last.Result.Attempt
		switch {
		case a.TimedOut:
			return exit.Timeout
		case errors.As(a.Err, new(*output.StreamError)):
			return exit.IOError // the body could not be kept whole
		case r.kind != acceptor.CommandAttempt:
			return exit.Failure // an HTTP call or a TCP connect has no status of its own
		case errors.As(a.Err, new(*output.LimitError)):
			return exit.Failure // retry stopped it: its status says nothing
		case a.ExitCode == 0:
			// A failure acceptor matched a zero exit status: still a failure.
			return exit.Failure
		}
		return a.ExitCode
	}
	if code != exit.OK || r.final == nil {
		return code
	}
	switch {
	case r.query && !isWriteError(r.final):
		return exit.Query // the wait succeeded, but the projection asked for cannot be computed
	case errors.As(last.Result.Attempt.Err, new(*output.LimitError)):
		return exit.Failure // an acceptor took the cut attempt for a success; its output is not whole
	}
	// Like cat: output that could not be written (a full device, a closed
	// pipe) or kept whole is an error, never exit 0.
	return exit.ForStream(r.final)
}

// newRunEnd is the end of a run of p that made the attempts of out.
func newRunEnd(p *plan.Plan, out *runner.Outcome) *runEnd {
	r := &runEnd{wait: p.Wait, kind: p.Kind, query: p.Query != nil, out: out}
	if out != nil {
		r.end = out.End
	}
	return r
}

// errorLine writes the line of err, if it has one, on ios.ErrOut: an
// *exit.Error's message, or cobra's error (an unknown command, a bad
// flag) as one line that names the flag.
func errorLine(ios *iostreams.IOStreams, err error) {
	var ee *exit.Error
	var r *runEnd
	var nr *notRun
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ee.Msg != "" {
			fmt.Fprintln(ios.ErrOut, "retry: "+echo.Untrusted(ee.Msg).Message())
		}
	case errors.As(err, &r), errors.As(err, &nr):
		// The run said what happened in its log.
	default:
		fmt.Fprintln(ios.ErrOut, "retry: "+echo.Untrusted(flagErrorText(err)).Message())
	}
}

// isWriteError reports whether err is a failed write (a device error, a
// closed pipe) rather than a failure to compute what to write.
func isWriteError(err error) bool {
	var pe *os.PathError
	var se *output.StreamError
	return errors.As(err, &pe) || errors.As(err, &se) || errors.Is(err, syscall.EPIPE)
}
