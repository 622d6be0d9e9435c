package cmd

import (
	"errors"
	"syscall"
	"testing"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// outcome builds an outcome whose last attempt is a, decided by the
// fallback.
func outcome(end runner.End, a *acceptor.Attempt, err error) *runner.Outcome {
	d := acceptor.Decision{Source: acceptor.FromFallback, Directive: acceptor.Fail}
	return &runner.Outcome{End: end, Err: err, Attempts: []runner.Record{{Number: 1, Result: &runner.Result{Attempt: a}, Decision: d}}}
}

// usageFailure is an outcome whose attempt an acceptor found to be a
// mistake of the command line.
func usageFailure() *runner.Outcome {
	out := outcome(runner.EndFailure, &acceptor.Attempt{}, nil)
	out.Attempts[0].Decision.Usage = true
	return out
}

// ended is the end of a run of kind whose attempts are out.
func ended(wait bool, kind acceptor.AttemptKind, out *runner.Outcome) *runEnd {
	return &runEnd{wait: wait, kind: kind, out: out, end: out.End}
}

func TestExitStatus(t *testing.T) {
	cmdFail := &acceptor.Attempt{ExitCode: 3, Failed: true}
	command, web, tcp := acceptor.CommandAttempt, acceptor.HTTPAttempt, acceptor.TCPAttempt
	withFinal := func(r *runEnd, final error, query bool) *runEnd { r.final, r.query = final, query; return r }
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"nothing to run (--list-waiters)", nil, 0},
		{"usage", exit.Usagef("--delay: bad"), 125},
		{"cobra's own error", errors.New(`unknown command "wiat"`), 125},
		{"success", ended(false, command, outcome(runner.EndSuccess, &acceptor.Attempt{}, nil)), 0},
		{"run: attempts exhausted gives the child's status", ended(false, command, outcome(runner.EndAttempts, cmdFail, nil)), 3},
		{"run: a failure acceptor gives the child's status", ended(false, command, outcome(runner.EndFailure, cmdFail, nil)), 3},
		{"run: a failure acceptor on exit 0 is still a failure", ended(false, command, outcome(runner.EndFailure, &acceptor.Attempt{}, nil)), 1},
		{"run: signal death", ended(false, command, outcome(runner.EndAttempts, &acceptor.Attempt{ExitCode: 137, Failed: true}, nil)), 137},
		{"run: not found", ended(false, command, outcome(runner.EndFailure, &acceptor.Attempt{ExitCode: 127, NotStarted: true, Failed: true}, nil)), 127},
		{"run: the last attempt timed out", ended(false, command, outcome(runner.EndAttempts, &acceptor.Attempt{ExitCode: 143, TimedOut: true, Failed: true}, nil)), 124},
		{"run: empty bucket ends with the last status", ended(false, command, outcome(runner.EndBucket, cmdFail, nil)), 3},
		{"run --url: the call failed", ended(false, web, outcome(runner.EndFailure, &acceptor.Attempt{Kind: acceptor.HTTPAttempt, Status: 404, Failed: true}, nil)), 1},
		{"run --url: timed out", ended(false, web, outcome(runner.EndAttempts, &acceptor.Attempt{Kind: acceptor.HTTPAttempt, TimedOut: true, Failed: true}, nil)), 124},
		{"run --tcp: refused", ended(false, tcp, outcome(runner.EndAttempts, &acceptor.Attempt{Kind: acceptor.TCPAttempt, Failed: true}, nil)), 1},
		{"a usage failure (k8s: stdout not JSON)", &runEnd{out: usageFailure(), end: runner.EndFailure, kind: command}, 125},
		{"deadline", ended(false, command, outcome(runner.EndDeadline, cmdFail, nil)), 124},
		{"scheduled (--state)", ended(false, command, outcome(runner.EndScheduled, cmdFail, nil)), 75},
		{"interrupted by SIGTERM", ended(false, command, outcome(runner.EndInterrupted, cmdFail, &runner.Interrupt{Signal: syscall.SIGTERM})), 143},
		{"interrupted by SIGINT", ended(true, command, outcome(runner.EndInterrupted, cmdFail, &runner.Interrupt{Signal: syscall.SIGINT})), 130},
		{"wait: failure state", ended(true, command, outcome(runner.EndFailure, &acceptor.Attempt{}, nil)), 1},
		{"wait: gave up on attempts", ended(true, command, outcome(runner.EndAttempts, &acceptor.Attempt{}, nil)), 124},
		{"wait: the command was not found", ended(true, command, outcome(runner.EndFailure, &acceptor.Attempt{ExitCode: 127, NotStarted: true, Failed: true}, nil)), 127},
		{"wait --query cannot be evaluated", withFinal(ended(true, command, outcome(runner.EndSuccess, &acceptor.Attempt{}, nil)), errors.New("not JSON"), true), 65},
		{"stdout was a closed pipe", withFinal(ended(false, command, outcome(runner.EndSuccess, &acceptor.Attempt{}, nil)), &output.StreamError{Stream: "stdout", Err: syscall.EPIPE}, false), 141},
		{"stdout could not be written", withFinal(ended(false, command, outcome(runner.EndSuccess, &acceptor.Attempt{}, nil)), &output.StreamError{Stream: "stdout", Err: syscall.ENOSPC}, false), 74},
		{"a sink failed", &runEnd{out: outcome(runner.EndSuccess, &acceptor.Attempt{}, nil), end: runner.EndSuccess, sinkFailed: true}, 74},
		{"a signal while a sink waited", &runEnd{out: outcome(runner.EndSuccess, &acceptor.Attempt{}, nil), end: runner.EndSuccess, sinkFailed: true, signal: &runner.Interrupt{Signal: syscall.SIGINT}}, 130},
		{"--state: not due", &runEnd{before: &notRun{}}, 75},
		{"--state: an ended sequence repeats its status", &runEnd{before: &notRun{ended: true, status: 3}}, 3},
		{"--state: a corrupt file", &runEnd{before: exit.Usagef("--state s.json: corrupt")}, 125},
		{"--state: the outcome could not be recorded", &runEnd{out: outcome(runner.EndAttempts, cmdFail, nil), end: runner.EndAttempts, unrecorded: true}, 75},
		{"--state: a run's unfinished attempt", &runEnd{kind: command, end: runner.EndAttempts, unfinished: true}, 137},
		{"--state: an HTTP call's unfinished attempt", &runEnd{kind: web, end: runner.EndAttempts, unfinished: true}, 1},
		{"--state: a wait's unfinished attempt", &runEnd{wait: true, end: runner.EndAttempts, unfinished: true}, 124},
	}
	for _, c := range cases {
		if got := exitStatus(c.err); got != c.want {
			t.Errorf("%s: exit status %d, want %d", c.name, got, c.want)
		}
	}
}
