package runner

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/acceptor"
)

// stopRecord is what an attempt that runs until it is stopped saw.
type stopRecord struct {
	stoppedAfter time.Duration // since the run started
	stopBy       time.Duration // StopBy, since the run started; -1 when none
	cause        error
}

// untilStopped is a source whose attempts run until their context is done.
func untilStopped(t0 time.Time, got *[]stopRecord) Source {
	return SourceFunc(func(ctx context.Context, n, max int) *Result {
		<-ctx.Done()
		r := stopRecord{stoppedAfter: time.Since(t0), stopBy: -1, cause: context.Cause(ctx)}
		if by, ok := StopBy(ctx); ok {
			r.stopBy = by.Sub(t0)
		}
		*got = append(*got, r)
		return &Result{Attempt: &acceptor.Attempt{Failed: true}, Stopped: r.cause}
	})
}

// With a StopGrace (a wait's --kill-after), the deadline stops the attempt
// that much before --max-time, or a tenth of the attempt's time to it
// before it when the attempt has less than ten times the grace left, and tells the source to have it ended by the
// deadline itself: the run never ends past --max-time, even when the
// command ignores SIGTERM. Without one (run), the stop comes at the
// deadline and the source keeps its whole grace.
func TestDeadlineStopIncludesGrace(t *testing.T) {
	for _, tc := range []struct {
		name            string
		maxTime, grace  time.Duration
		stopped, stopBy time.Duration
	}{
		{"grace before the deadline", 100 * time.Second, 3 * time.Second, 97 * time.Second, 100 * time.Second},
		{"a tenth when the grace is longer", 2 * time.Second, 5 * time.Second, 1800 * time.Millisecond, 2 * time.Second},
		{"no grace: at the deadline", 10 * time.Second, 0, 10 * time.Second, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var got []stopRecord
				s := newStrategy(constant(time.Second))
				s.MaxTime, s.StopGrace = tc.maxTime, tc.grace
				out := s.Run(t.Context(), untilStopped(time.Now(), &got))
				if out.End != EndDeadline || len(got) != 1 {
					t.Fatalf("end %v after %d attempts, want the deadline after 1", out.End, len(got))
				}
				r := got[0]
				if r.stoppedAfter != tc.stopped || r.stopBy != tc.stopBy || !errors.Is(r.cause, ErrDeadline) {
					t.Errorf("stopped after %v (cause %v), stop by %v; want %v, ErrDeadline, %v", r.stoppedAfter, r.cause, r.stopBy, tc.stopped, tc.stopBy)
				}
			})
		})
	}
}

// An attempt that starts late in the budget (after a delay) gets nine
// tenths of what is left before the stop.
func TestDeadlineStopLateAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []stopRecord
		t0 := time.Now()
		first := true
		src := SourceFunc(func(ctx context.Context, n, max int) *Result {
			if first { // fails at once: the next starts after the 8s delay
				first = false
				return &Result{Attempt: &acceptor.Attempt{Failed: true, ExitCode: 1}}
			}
			return untilStopped(t0, &got).Attempt(ctx, n, max)
		})
		s := newStrategy(constant(8 * time.Second))
		s.MaxTime, s.StopGrace = 10*time.Second, 5*time.Second
		s.Run(t.Context(), src)
		if len(got) != 1 || got[0].stoppedAfter != 9800*time.Millisecond || got[0].stopBy != 10*time.Second {
			t.Errorf("late attempt: %+v; want stopped after 9.8s, by 10s", got)
		}
	})
}
