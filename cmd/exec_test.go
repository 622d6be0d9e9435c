package cmd

import (
	"syscall"
	"testing"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/runner"
)

// outcome builds an outcome whose last attempt is a, decided by the
// fallback.
func outcome(end runner.End, a *acceptor.Attempt, err error) *runner.Outcome {
	d := acceptor.Decision{Source: acceptor.FromFallback, Directive: acceptor.Fail}
	return &runner.Outcome{End: end, Err: err, Attempts: []runner.Record{{Number: 1, Result: &runner.Result{Attempt: a}, Decision: d}}}
}

func TestExitStatus(t *testing.T) {
	cmdFail := &acceptor.Attempt{ExitCode: 3, Failed: true}
	cases := []struct {
		name string
		wait bool
		http bool
		out  *runner.Outcome
		want int
	}{
		{"success", false, false, outcome(runner.EndSuccess, &acceptor.Attempt{}, nil), 0},
		{"run: attempts exhausted gives the child's status", false, false, outcome(runner.EndAttempts, cmdFail, nil), 3},
		{"run: a failure acceptor gives the child's status", false, false, outcome(runner.EndFailure, cmdFail, nil), 3},
		{"run: a failure acceptor on exit 0 is still a failure", false, false, outcome(runner.EndFailure, &acceptor.Attempt{}, nil), 1},
		{"run: signal death", false, false, outcome(runner.EndAttempts, &acceptor.Attempt{ExitCode: 137, Failed: true}, nil), 137},
		{"run: not found", false, false, outcome(runner.EndFailure, &acceptor.Attempt{ExitCode: 127, NotStarted: true, Failed: true}, nil), 127},
		{"run: the last attempt timed out", false, false, outcome(runner.EndAttempts, &acceptor.Attempt{ExitCode: 143, TimedOut: true, Failed: true}, nil), 124},
		{"run: empty bucket ends with the last status", false, false, outcome(runner.EndBucket, cmdFail, nil), 3},
		{"run --url: the call failed", false, true, outcome(runner.EndFailure, &acceptor.Attempt{Kind: acceptor.HTTPAttempt, Status: 404, Failed: true}, nil), 1},
		{"run --url: timed out", false, true, outcome(runner.EndAttempts, &acceptor.Attempt{Kind: acceptor.HTTPAttempt, TimedOut: true, Failed: true}, nil), 124},
		{"deadline", false, false, outcome(runner.EndDeadline, cmdFail, nil), 124},
		{"interrupted by SIGTERM", false, false, outcome(runner.EndInterrupted, cmdFail, &runner.Interrupt{Signal: syscall.SIGTERM}), 143},
		{"interrupted by SIGINT", true, false, outcome(runner.EndInterrupted, cmdFail, &runner.Interrupt{Signal: syscall.SIGINT}), 130},
		{"wait: failure state", true, false, outcome(runner.EndFailure, &acceptor.Attempt{}, nil), 1},
		{"wait: gave up on attempts", true, false, outcome(runner.EndAttempts, &acceptor.Attempt{}, nil), 124},
		{"wait: the command was not found", true, false, outcome(runner.EndFailure, &acceptor.Attempt{ExitCode: 127, NotStarted: true, Failed: true}, nil), 127},
	}
	for _, c := range cases {
		o := plan.New(c.wait, nil)
		if got := exitStatus(o, &plan.Plan{HTTP: c.http}, c.out); got != c.want {
			t.Errorf("%s: exit status %d, want %d", c.name, got, c.want)
		}
	}
}
