package runner

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/bucket"
)

// streaks lists each attempt's Streak.
func streaks(out *Outcome) []int {
	s := make([]int, len(out.Attempts))
	for i, r := range out.Attempts {
		s[i] = r.Streak
	}
	return s
}

func TestConsecutiveSuccessesEndTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{0}, t0: time.Now()}
		s := newStrategy(constant(250 * time.Millisecond))
		s.Consecutive = 3
		out := s.Run(t.Context(), src)
		if out.End != EndSuccess || len(out.Attempts) != 3 {
			t.Fatalf("end = %v after %d attempts, want success after 3", out.End, len(out.Attempts))
		}
		if want := "[0s 250ms 500ms]"; fmt.Sprint(src.starts) != want {
			t.Errorf("attempts started at %v, want %v", src.starts, want)
		}
		if fmt.Sprint(streaks(out)) != "[1 2 3]" {
			t.Errorf("streaks %v, want [1 2 3]", streaks(out))
		}
		if r := out.Attempts[1]; !r.Retried || r.Delay != 250*time.Millisecond || r.Decision.Directive != acceptor.Succeed {
			t.Errorf("attempt 2: retried %v, delay %v, directive %v; want another attempt after 250ms on a success", r.Retried, r.Delay, r.Decision.Directive)
		}
		if out.Last().Retried || out.Last().Delay != 0 {
			t.Errorf("last attempt retried %v after %v", out.Last().Retried, out.Last().Delay)
		}
	})
}

func TestConsecutiveCountStartsAgainAfterARetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// up, up, down, up, up, up: the failure at attempt 3 resets the count.
		src := &script{codes: []int{0, 0, 1, 0, 0, 0, 1}, t0: time.Now()}
		s := newStrategy(doubling(time.Second))
		s.MaxAttempts = 10
		s.Consecutive = 3
		out := s.Run(t.Context(), src)
		if out.End != EndSuccess || len(out.Attempts) != 6 {
			t.Fatalf("end = %v after %d attempts, want success after 6", out.End, len(out.Attempts))
		}
		if fmt.Sprint(streaks(out)) != "[1 2 0 1 2 3]" {
			t.Errorf("streaks %v, want [1 2 0 1 2 3]", streaks(out))
		}
		// The backoff sees the attempt number, successes included: 1s 2s 4s 8s 16s.
		if want := "[0s 1s 3s 7s 15s 31s]"; fmt.Sprint(src.starts) != want {
			t.Errorf("attempts started at %v, want %v", src.starts, want)
		}
	})
}

func TestConsecutiveRunsOutOfAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{0, 1, 0, 0}, t0: time.Now()}
		s := newStrategy(constant(time.Second))
		s.MaxAttempts = 4
		s.Consecutive = 3
		out := s.Run(t.Context(), src)
		if out.End != EndAttempts || len(out.Attempts) != 4 {
			t.Fatalf("end = %v after %d attempts, want attempts exhausted after 4", out.End, len(out.Attempts))
		}
		if fmt.Sprint(streaks(out)) != "[1 0 1 2]" || out.Last().Decision.Directive != acceptor.Succeed {
			t.Errorf("streaks %v, last directive %v", streaks(out), out.Last().Decision.Directive)
		}
		if out.Elapsed != 3*time.Second {
			t.Errorf("elapsed %v, want 3s", out.Elapsed)
		}
	})
}

func TestConsecutiveFailureStopsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{0, 0, 2}, t0: time.Now()}
		s := newStrategy(constant(time.Second))
		s.Consecutive = 3
		s.Chain = &acceptor.Chain{Acceptors: []acceptor.Acceptor{{State: acceptor.StateFailure, Name: "exit 2",
			Matcher: acceptor.MatcherFunc(func(e *acceptor.Env) acceptor.MatchResult {
				return acceptor.MatchResult{Matched: e.Attempt.ExitCode == 2}
			})}}}
		out := s.Run(t.Context(), src)
		if out.End != EndFailure || len(out.Attempts) != 3 || fmt.Sprint(streaks(out)) != "[1 2 2]" {
			t.Fatalf("end = %v after %d attempts, streaks %v", out.End, len(out.Attempts), streaks(out))
		}
	})
}

func TestConsecutiveDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{0}, t0: time.Now()}
		s := newStrategy(constant(2 * time.Second))
		s.MaxAttempts = 0
		s.MaxTime = 3 * time.Second
		s.Consecutive = 3
		out := s.Run(t.Context(), src)
		// Attempts at 0s and 2s; the next would start at 4s > 3s.
		if out.End != EndDeadline || fmt.Sprint(src.starts) != "[0s 2s]" {
			t.Fatalf("end = %v, starts %v", out.End, src.starts)
		}
	})
}

func TestConsecutiveSuccessesPayNoRetryToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		frozen := time.Now()
		b := bucket.NewStandard(bucket.StandardOptions{Now: func() time.Time { return frozen }}) // no refill
		src := &script{codes: []int{1, 0}, t0: time.Now()}
		s := newStrategy(constant(time.Second))
		s.Consecutive = 3
		s.Bucket = b
		out := s.Run(t.Context(), src)
		if out.End != EndSuccess || len(out.Attempts) != 4 {
			t.Fatalf("end = %v after %d attempts", out.End, len(out.Attempts))
		}
		// One retry (14 tokens) refunded by the success that followed it; the
		// successes in a row cost nothing (and refund the first-try token,
		// capped at capacity).
		if b.Available() != 500 {
			t.Errorf("bucket holds %d, want 500", b.Available())
		}
	})
}

func TestConsecutiveOneIsTheFirstSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []int{0, 1} {
			src := &script{codes: []int{1, 0}, t0: time.Now()}
			s := newStrategy(constant(time.Second))
			s.Consecutive = c
			out := s.Run(t.Context(), src)
			if out.End != EndSuccess || len(out.Attempts) != 2 || fmt.Sprint(streaks(out)) != "[0 0]" {
				t.Errorf("consecutive %d: end = %v after %d attempts, streaks %v", c, out.End, len(out.Attempts), streaks(out))
			}
		}
	})
}

// hookLog records the hook's calls: when, after which attempt, for which retry.
type hookLog struct {
	t0    time.Time
	calls []string
	run   time.Duration // how long each call takes (stopped by ctx)
	err   error
}

func (h *hookLog) hook(ctx context.Context, prev *Record, n int) *HookResult {
	start := time.Now()
	err := h.err
	if h.run > 0 {
		if e := SleepContext(ctx, h.run); e != nil {
			err = e
		}
	}
	h.calls = append(h.calls, fmt.Sprintf("%v:after %d:before %d", start.Sub(h.t0), prev.Number, n))
	return &HookResult{Err: err, Duration: time.Since(start)}
}

func TestOnRetryRunsAfterTheDelayBeforeEveryRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hookLog{t0: time.Now(), run: 100 * time.Millisecond}
		src := &script{codes: []int{1, 1, 0}, t0: h.t0}
		s := newStrategy(constant(time.Second))
		s.OnRetry = h.hook
		var hooks []string
		s.Observe = func(e Event) {
			if e.Kind == EventHook {
				hooks = append(hooks, fmt.Sprintf("%d:%v", e.Attempt, e.Hook.Err))
			}
		}
		out := s.Run(t.Context(), src)
		if out.End != EndSuccess {
			t.Fatalf("end = %v", out.End)
		}
		if want := "[1s:after 1:before 2 2.1s:after 2:before 3]"; fmt.Sprint(h.calls) != want {
			t.Errorf("hook calls %v, want %v", h.calls, want)
		}
		if want := "[0s 1.1s 2.2s]"; fmt.Sprint(src.starts) != want {
			t.Errorf("attempts started at %v, want %v", src.starts, want)
		}
		if fmt.Sprint(hooks) != "[2:<nil> 3:<nil>]" {
			t.Errorf("hook events %v", hooks)
		}
	})
}

func TestOnRetryFailureDoesNotStopTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hookLog{t0: time.Now(), err: fmt.Errorf("exit status 3")}
		src := &script{codes: []int{1, 0}, t0: h.t0}
		s := newStrategy(constant(time.Second))
		s.OnRetry = h.hook
		var got []error
		s.Observe = func(e Event) {
			if e.Kind == EventHook {
				got = append(got, e.Hook.Err)
			}
		}
		out := s.Run(t.Context(), src)
		if out.End != EndSuccess || len(out.Attempts) != 2 || len(got) != 1 || got[0] == nil {
			t.Fatalf("end = %v after %d attempts, hook errors %v", out.End, len(out.Attempts), got)
		}
	})
}

func TestOnRetryBoundedByTheAttemptTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hookLog{t0: time.Now(), run: time.Hour}
		src := &script{codes: []int{1, 0}, t0: h.t0}
		s := newStrategy(constant(time.Second))
		s.AttemptTimeout = 2 * time.Second
		s.OnRetry = h.hook
		out := s.Run(t.Context(), src)
		if out.End != EndSuccess || fmt.Sprint(src.starts) != "[0s 3s]" {
			t.Fatalf("end = %v, starts %v: the hook should be stopped after 2s", out.End, src.starts)
		}
	})
}

func TestOnRetryStoppedByTheDeadlineEndsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hookLog{t0: time.Now(), run: time.Hour}
		src := &script{codes: []int{1}, t0: h.t0}
		s := newStrategy(constant(time.Second))
		s.MaxTime = 5 * time.Second
		s.OnRetry = h.hook
		out := s.Run(t.Context(), src)
		if out.End != EndDeadline || len(out.Attempts) != 1 || out.Elapsed != 5*time.Second {
			t.Fatalf("end = %v after %d attempts in %v, want the deadline after 1 attempt at 5s", out.End, len(out.Attempts), out.Elapsed)
		}
	})
}

func TestOnRetryNotRunBetweenConsecutiveSuccesses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hookLog{t0: time.Now()}
		src := &script{codes: []int{0, 1, 0}, t0: h.t0}
		s := newStrategy(constant(time.Second))
		s.Consecutive = 2
		s.OnRetry = h.hook
		out := s.Run(t.Context(), src)
		if out.End != EndSuccess || len(out.Attempts) != 4 {
			t.Fatalf("end = %v after %d attempts", out.End, len(out.Attempts))
		}
		if want := "[2s:after 2:before 3]"; fmt.Sprint(h.calls) != want {
			t.Errorf("hook calls %v, want %v (only before a retry)", h.calls, want)
		}
	})
}
