package plan

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/internal/testdir"
	"github.com/retry-dev/retry/runner"
)

// throttledSchedule builds the plan of args and runs its strategy in a
// synctest bubble (the limiter's clock starts in it) on a source whose
// every attempt is throttled (ThrottlingException); it returns when each
// attempt started, from the start of the run.
func throttledSchedule(t *testing.T, args ...string) []time.Duration {
	t.Helper()
	var starts []time.Duration
	synctest.Test(t, func(t *testing.T) {
		p := planFor(t, false, args...)
		start := time.Now()
		src := runner.SourceFunc(func(ctx context.Context, n, max int) *runner.Result {
			starts = append(starts, time.Since(start))
			return &runner.Result{Attempt: &acceptor.Attempt{ExitCode: 1, Failed: true, ErrorCode: "ThrottlingException"}}
		})
		p.Strategy.Run(context.Background(), src)
	})
	return starts
}

// TestAdaptiveThrottleDelay: in adaptive mode the limiter paces throttled
// retries, so their backoff starts from --delay, not from the 5s
// --throttle-delay default; an explicit --throttle-delay (or
// RETRY_THROTTLE_DELAY) still applies, and standard mode keeps 5s.
//
// Adaptive, -d 1s: the throttle at 0s sets the fill rate to 0.7·0.8·1/0.5
// = 1.12/s, so at 1s the bucket holds its capacity (1.12) and the retry
// goes; the throttle at 1s cuts to 0.784/s, and by 3s the bucket holds its
// capacity of 1 again: the limiter never holds these retries back.
func TestAdaptiveThrottleDelay(t *testing.T) {
	for _, c := range []struct {
		env  string
		args []string
		want []time.Duration
	}{
		{"", []string{"--mode", "adaptive"}, seconds(0, 1, 3)},
		{"", []string{"--mode", "Adaptive", "--scope", "s"}, seconds(0, 1, 3)},
		{"", []string{"--mode", "adaptive", "--throttle-delay", "2s"}, seconds(0, 2, 6)},
		{"2s", []string{"--mode", "adaptive"}, seconds(0, 2, 6)},
		{"", []string{"--mode", "standard"}, seconds(0, 5, 15)},
		{"", []string{"--mode", "off"}, seconds(0, 5, 15)},
	} {
		t.Run(c.env+"/"+c.args[1], func(t *testing.T) {
			t.Setenv("RETRY_STATE_DIR", testdir.New(t))
			if c.env != "" {
				t.Setenv("RETRY_THROTTLE_DELAY", c.env)
			}
			if got := throttledSchedule(t, append([]string{"-n", "3", "-d", "1s", "--jitter", "none"}, c.args...)...); !slices.Equal(got, c.want) {
				t.Errorf("%q (RETRY_THROTTLE_DELAY=%q): attempts at %v, want %v", c.args, c.env, got, c.want)
			}
		})
	}
}
