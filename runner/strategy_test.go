package runner

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/bucket"
)

// script is a fake source: attempt n exits with codes[n-1] (the last code
// repeats) after taking runFor, and records when each attempt started.
type script struct {
	codes   []int
	runFor  time.Duration
	starts  []time.Duration
	t0      time.Time
	retryAt time.Duration // RetryAfter hint on every attempt
}

func (s *script) Attempt(ctx context.Context, n, max int) *Result {
	s.starts = append(s.starts, time.Since(s.t0))
	code := s.codes[min(n, len(s.codes))-1]
	if s.runFor > 0 {
		if err := bucket.Sleep(ctx, s.runFor); err != nil {
			return &Result{Attempt: &acceptor.Attempt{ExitCode: 143, Failed: true}, Stopped: err}
		}
	}
	return &Result{Attempt: &acceptor.Attempt{ExitCode: code, Failed: code != 0, RetryAfter: s.retryAt}}
}

func constant(d time.Duration) backoff.Backoff {
	return backoff.Func(func(backoff.Step, backoff.Rand) time.Duration { return d })
}

func doubling(base time.Duration) backoff.Backoff {
	return backoff.Func(func(s backoff.Step, _ backoff.Rand) time.Duration { return base << (s.Attempt - 1) })
}

func newStrategy(b backoff.Backoff) *Strategy {
	return &Strategy{Chain: &acceptor.Chain{}, Backoff: b, MaxAttempts: 5}
}

func TestSuccessOnThirdAttemptSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{1, 1, 0}, t0: time.Now()}
		out := newStrategy(doubling(time.Second)).Run(t.Context(), src)
		if out.End != EndSuccess {
			t.Fatalf("end = %v, want success", out.End)
		}
		want := []time.Duration{0, time.Second, 3 * time.Second}
		if fmt.Sprint(src.starts) != fmt.Sprint(want) {
			t.Errorf("attempts started at %v, want %v", src.starts, want)
		}
		if out.Elapsed != 3*time.Second {
			t.Errorf("elapsed %v, want 3s", out.Elapsed)
		}
		if got := []time.Duration{out.Attempts[0].Delay, out.Attempts[1].Delay, out.Attempts[2].Delay}; fmt.Sprint(got) != "[1s 2s 0s]" {
			t.Errorf("delays %v", got)
		}
	})
}

func TestAttemptsExhausted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{3}, t0: time.Now()}
		s := newStrategy(constant(time.Second))
		s.MaxAttempts = 4
		out := s.Run(t.Context(), src)
		if out.End != EndAttempts || len(out.Attempts) != 4 {
			t.Fatalf("end = %v after %d attempts, want attempts exhausted after 4", out.End, len(out.Attempts))
		}
		if out.Elapsed != 3*time.Second {
			t.Errorf("elapsed %v, want 3s (no delay after the last attempt)", out.Elapsed)
		}
		if out.Last().Delay != 0 {
			t.Errorf("last delay %v, want 0", out.Last().Delay)
		}
	})
}

func TestFailureDirectiveStopsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{1, 2}, t0: time.Now()}
		s := newStrategy(constant(time.Second))
		s.Chain = &acceptor.Chain{Acceptors: []acceptor.Acceptor{{State: acceptor.StateFailure, Name: "exit 2",
			Matcher: acceptor.MatcherFunc(func(e *acceptor.Env) acceptor.MatchResult {
				return acceptor.MatchResult{Matched: e.Attempt.ExitCode == 2}
			})}}}
		out := s.Run(t.Context(), src)
		if out.End != EndFailure || len(out.Attempts) != 2 || out.Last().Decision.Name != "exit 2" {
			t.Fatalf("end = %v after %d attempts by %q", out.End, len(out.Attempts), out.Last().Decision.Name)
		}
	})
}

func TestDeadlineSkipsADelayThatEndsPastIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{1}, t0: time.Now()}
		s := newStrategy(doubling(time.Second))
		s.MaxAttempts = 0
		s.MaxTime = 5 * time.Second
		out := s.Run(t.Context(), src)
		// Attempts at 0s, 1s, 3s; the next delay (4s) would end at 7s > 5s.
		if out.End != EndDeadline || fmt.Sprint(src.starts) != "[0s 1s 3s]" {
			t.Fatalf("end = %v, starts %v", out.End, src.starts)
		}
		if out.Elapsed != 3*time.Second {
			t.Errorf("elapsed %v, want 3s: a delay past the deadline is not slept", out.Elapsed)
		}
	})
}

func TestDeadlineStopsARunningAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{1}, runFor: 10 * time.Second, t0: time.Now()}
		s := newStrategy(constant(0))
		s.MaxTime = 2500 * time.Millisecond
		out := s.Run(t.Context(), src)
		if out.End != EndDeadline || !errors.Is(out.Last().Result.Stopped, ErrDeadline) {
			t.Fatalf("end = %v, stopped %v", out.End, out.Last().Result.Stopped)
		}
		if out.Elapsed != 2500*time.Millisecond {
			t.Errorf("elapsed %v, want 2.5s", out.Elapsed)
		}
	})
}

func TestAttemptTimeoutIsRetriedAsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{0}, runFor: 10 * time.Second, t0: time.Now()}
		s := newStrategy(constant(time.Second))
		s.MaxAttempts = 3
		s.AttemptTimeout = 2 * time.Second
		out := s.Run(t.Context(), src)
		if out.End != EndAttempts || len(out.Attempts) != 3 {
			t.Fatalf("end = %v after %d", out.End, len(out.Attempts))
		}
		for _, r := range out.Attempts {
			if !r.Result.TimedOut || r.Decision.Directive != acceptor.RetryTimeout {
				t.Errorf("attempt %d: timed out %v, directive %v", r.Number, r.Result.TimedOut, r.Decision.Directive)
			}
		}
		if fmt.Sprint(src.starts) != "[0s 3s 6s]" || out.Elapsed != 8*time.Second {
			t.Errorf("starts %v, elapsed %v", src.starts, out.Elapsed)
		}
	})
}

func TestInterruptDuringSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		src := &script{codes: []int{1}, t0: time.Now()}
		s := newStrategy(constant(time.Hour))
		go func() {
			time.Sleep(90 * time.Second)
			cancel(&Interrupt{Signal: syscall.SIGTERM})
		}()
		out := s.Run(ctx, src)
		var intr *Interrupt
		if out.End != EndInterrupted || !errors.As(out.Err, &intr) || intr.Signal != syscall.SIGTERM {
			t.Fatalf("end = %v, err %v", out.End, out.Err)
		}
		if len(out.Attempts) != 1 || out.Elapsed != 90*time.Second {
			t.Errorf("%d attempts, elapsed %v", len(out.Attempts), out.Elapsed)
		}
	})
}

func TestRetryAfterHintRaisesDelayAndIsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{1, 1, 0}, retryAt: 90 * time.Second, t0: time.Now()}
		s := newStrategy(constant(time.Second))
		s.MaxRetryAfter = 60 * time.Second
		out := s.Run(t.Context(), src)
		if out.End != EndSuccess || fmt.Sprint(src.starts) != "[0s 1m0s 2m0s]" {
			t.Fatalf("end %v, starts %v", out.End, src.starts)
		}
		if out.Attempts[0].RetryAfter != time.Minute {
			t.Errorf("recorded hint %v, want the capped 1m", out.Attempts[0].RetryAfter)
		}
	})
}

func TestRetryAfterPastDeadlineEndsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{1}, retryAt: 30 * time.Second, t0: time.Now()}
		s := newStrategy(constant(time.Second))
		s.MaxRetryAfter = time.Minute
		s.MaxTime = 10 * time.Second
		out := s.Run(t.Context(), src)
		if out.End != EndDeadline || len(out.Attempts) != 1 || out.Elapsed != 0 {
			t.Fatalf("end %v after %d attempts in %v", out.End, len(out.Attempts), out.Elapsed)
		}
		if r := out.Attempts[0]; r.RetryAfter != 30*time.Second || r.Delay != 0 || r.Retried {
			t.Errorf("recorded hint %v, delay %v, retried %v; want the 30s hint, no delay, not retried", r.RetryAfter, r.Delay, r.Retried)
		}
	})
}

func TestEmptyBucketEndsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{1}, t0: time.Now()}
		s := newStrategy(constant(0))
		s.MaxAttempts = 0
		s.MaxTime = time.Hour
		s.Bucket = bucket.NewStandard(bucket.StandardOptions{Capacity: 30}) // two retries at 14 tokens each
		out := s.Run(t.Context(), src)
		var empty *bucket.EmptyError
		if out.End != EndBucket || len(out.Attempts) != 3 || !errors.As(out.Err, &empty) {
			t.Fatalf("end %v after %d attempts, err %v", out.End, len(out.Attempts), out.Err)
		}
		if empty.Cost != 14 || empty.Available != 2 {
			t.Errorf("empty error %+v, want cost 14 with 2 left", empty)
		}
	})
}

func TestThrottleUsesItsOwnBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{1, 1, 0}, t0: time.Now()}
		s := newStrategy(constant(time.Second))
		s.ThrottleBackoff = constant(5 * time.Second)
		s.Chain = &acceptor.Chain{Fallback: func(a *acceptor.Attempt) (acceptor.Directive, string) {
			if a.Number == 1 {
				return acceptor.RetryThrottle, "throttled"
			}
			return acceptor.RunFallback(a)
		}}
		out := s.Run(t.Context(), src)
		if out.End != EndSuccess || fmt.Sprint(src.starts) != "[0s 5s 6s]" {
			t.Fatalf("end %v, starts %v", out.End, src.starts)
		}
	})
}

func TestRetryUnsafeAttemptFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := SourceFunc(func(ctx context.Context, n, max int) *Result {
			return &Result{Attempt: &acceptor.Attempt{Kind: acceptor.HTTPAttempt, Status: 503, Failed: true, RetryUnsafe: true}}
		})
		out := newStrategy(constant(0)).Run(t.Context(), src)
		if out.End != EndFailure || len(out.Attempts) != 1 {
			t.Fatalf("end %v after %d attempts", out.End, len(out.Attempts))
		}
		if d := out.Attempts[0].Decision; d.Source != acceptor.FromRetrySafety || d.Directive != acceptor.Fail || d.Name != "retry safety" {
			t.Fatalf("decision %v by %v (%q), want failure by retry safety", d.Directive, d.Source, d.Name)
		}
	})
}

// TestWaiterWithinTheBudget: under the Smithy waiter backoff and its
// last-attempt rule (remaining - delay <= minDelay: sleep remaining -
// minDelay), every attempt starts before the deadline with minDelay to run,
// and one still running at the deadline is stopped there: a wait never runs
// past --max-time.
func TestWaiterWithinTheBudget(t *testing.T) {
	for _, tt := range []struct {
		name           string
		minDelay, max  time.Duration
		budget, runFor time.Duration
		starts         string
		elapsed        time.Duration
		stopped        bool // the last attempt was stopped at the deadline
	}{
		// 1s..1s in 3.5s, attempts of 0.8s: after attempt 2 (1.8–2.6s)
		// 0.9s is left, less than minDelay: the wait gives up at 2.6s (it
		// used to stretch the delay to start a third attempt at 3.5s, which
		// ran to 4.3s).
		{"attempts of 0.8s", time.Second, time.Second, 3500 * time.Millisecond, 800 * time.Millisecond, "[0s 1.8s]", 2600 * time.Millisecond, false},
		// Attempts of 2s: after attempt 1, 1.5s is left; sleeping 1s would
		// leave 0.5s, so sleep 0.5s; attempt 2 starts at 2.5s with minDelay
		// to run and is stopped at the deadline, 3.5s.
		{"an attempt stopped at the deadline", time.Second, time.Second, 3500 * time.Millisecond, 2 * time.Second, "[0s 2.5s]", 3500 * time.Millisecond, true},
		// The Smithy specification's example (2s..120s, 300s, instant
		// requests), at the top of each draw: the last attempt starts at
		// 298s, minDelay before the deadline.
		{"smithy 2s..120s in 300s", 2 * time.Second, 120 * time.Second, 300 * time.Second, 0, "[0s 2s 6s 14s 30s 1m2s 2m6s 4m6s 4m58s]", 298 * time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := &script{codes: []int{1}, runFor: tt.runFor, t0: time.Now()}
				s := newStrategy(backoff.Waiter(tt.minDelay, tt.max))
				s.MaxAttempts = 0
				s.MaxTime = tt.budget
				out := s.Run(t.Context(), src)
				if out.End != EndDeadline || fmt.Sprint(src.starts) != tt.starts || out.Elapsed != tt.elapsed {
					t.Fatalf("end %v, starts %v, elapsed %v; want deadline, %s, %v", out.End, src.starts, out.Elapsed, tt.starts, tt.elapsed)
				}
				if out.Elapsed > tt.budget {
					t.Fatalf("elapsed %v past the budget %v", out.Elapsed, tt.budget)
				}
				last := out.Last()
				if stopped := errors.Is(last.Result.Stopped, ErrDeadline); stopped != tt.stopped {
					t.Fatalf("last attempt stopped by the deadline: %v, want %v", stopped, tt.stopped)
				}
				for _, r := range out.Attempts {
					if left := tt.budget - r.Start.Sub(out.Start); left < tt.minDelay {
						t.Fatalf("attempt %d started with %v left, less than minDelay", r.Number, left)
					}
				}
			})
		})
	}
}

func TestReleaseSupersededAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		released := map[int]bool{}
		src := SourceFunc(func(ctx context.Context, n, max int) *Result {
			return &Result{Attempt: &acceptor.Attempt{ExitCode: 1, Failed: true}, Release: func() { released[n] = true }}
		})
		s := newStrategy(constant(0))
		s.MaxAttempts = 3
		s.Run(t.Context(), src)
		if !released[1] || !released[2] || released[3] {
			t.Fatalf("released %v, want 1 and 2 but not the last", released)
		}
	})
}

func TestEventsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var kinds []EventKind
		s := newStrategy(constant(time.Second))
		s.Observe = func(e Event) { kinds = append(kinds, e.Kind) }
		s.Run(t.Context(), &script{codes: []int{1, 0}, t0: time.Now()})
		if fmt.Sprint(kinds) != fmt.Sprint([]EventKind{EventAttemptStart, EventAttemptEnd, EventAttemptStart, EventAttemptEnd, EventEnd}) {
			t.Fatalf("events %v", kinds)
		}
	})
}
