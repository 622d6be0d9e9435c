package runner

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/bucket"
)

// A run that ends because its next delay would pass --max-time pays only
// for the retries it made: two per run (28), never the third that did not
// happen (which made 458, 416, 374 before). The bucket's clock is frozen
// so that the counts are exact.
func TestDeadlineEndPaysNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		frozen := time.Now()
		b := bucket.NewStandard(bucket.StandardOptions{Now: func() time.Time { return frozen }})
		for run, want := range []int{472, 444, 416} {
			src := &script{codes: []int{1}, t0: time.Now()}
			s := newStrategy(doubling(time.Second)) // 1s, 2s, 4s: the third does not fit
			s.MaxAttempts = 0
			s.MaxTime = 3500 * time.Millisecond
			s.Bucket = b
			out := s.Run(t.Context(), src)
			if out.End != EndDeadline || fmt.Sprint(src.starts) != "[0s 1s 3s]" {
				t.Fatalf("run %d: end %v, starts %v", run, out.End, src.starts)
			}
			if got := b.Available(); got != want {
				t.Errorf("run %d: available %d, want %d", run, got, want)
			}
		}
	})
}

// The same with the deadline in the middle of a long delay: the first
// delay is planned past the deadline, so no token is taken at all.
func TestDeadlineBeforeFirstRetryPaysNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		b := bucket.NewStandard(bucket.StandardOptions{Now: func() time.Time { return now }}) // frozen: no refill
		for range 3 {
			s := newStrategy(constant(time.Minute))
			s.MaxTime = 10 * time.Second
			s.Bucket = b
			out := s.Run(t.Context(), &script{codes: []int{1}, t0: time.Now()})
			if out.End != EndDeadline || len(out.Attempts) != 1 {
				t.Fatalf("end %v after %d attempts", out.End, len(out.Attempts))
			}
		}
		if got := b.Available(); got != 500 {
			t.Errorf("three runs ending on their deadline left %d, want 500", got)
		}
	})
}

// A retry-after hint past the budget ends the run at once, paying nothing.
func TestRetryAfterPastBudgetPaysNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		b := bucket.NewStandard(bucket.StandardOptions{Now: func() time.Time { return now }})
		s := newStrategy(constant(0))
		s.MaxTime = 10 * time.Second
		s.MaxRetryAfter = time.Minute
		s.Bucket = b
		out := s.Run(t.Context(), &script{codes: []int{1}, t0: time.Now(), retryAt: 30 * time.Second})
		if out.End != EndDeadline || b.Available() != 500 {
			t.Fatalf("end %v, available %d; want deadline, 500", out.End, b.Available())
		}
	})
}

// A signal during the delay: the retry paid for will not run, its cost
// comes back.
func TestSignalDuringDelayPaysNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		b := bucket.NewStandard(bucket.StandardOptions{Now: func() time.Time { return now }})
		ctx, cancel := context.WithCancelCause(t.Context())
		s := newStrategy(constant(10 * time.Second))
		s.Bucket = b
		go func() {
			time.Sleep(15 * time.Second) // during the second delay
			cancel(&Interrupt{Signal: syscall.SIGINT})
		}()
		src := &script{codes: []int{1}, t0: time.Now()}
		out := s.Run(ctx, src)
		if out.End != EndInterrupted || len(out.Attempts) != 2 {
			t.Fatalf("end %v after %d attempts", out.End, len(out.Attempts))
		}
		if got := b.Available(); got != 486 {
			t.Errorf("available %d, want 486 (the retry made paid, the one interrupted did not)", got)
		}
	})
}

// --when-empty wait: the run waits for the refill instead of ending, at
// the exact times the refill allows; within --max-time.
func TestWaitForRefill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bucket.NewStandard(bucket.StandardOptions{Capacity: 20})
		src := &script{codes: []int{1, 1, 1, 0}, t0: time.Now()}
		s := newStrategy(constant(200 * time.Millisecond))
		s.Bucket = b
		s.WaitForRefill = true
		var waits []time.Duration
		s.Observe = func(e Event) {
			if e.Kind == EventBucketWait {
				waits = append(waits, e.Wait)
			}
		}
		out := s.Run(t.Context(), src)
		if out.End != EndSuccess {
			t.Fatalf("end %v, want success", out.End)
		}
		// Retry 1 is paid at once (20 → 6) and starts after its delay.
		// Retry 2 at 0.2s: 8 tokens missing, 8·100ms less the 200ms the
		// delay refilled = 600ms: it starts at 0.8s (the delay is inside
		// the wait). Retry 3 at 0.8s: 14 missing, 1.4s: it starts at 2.2s.
		if want := "[0s 200ms 800ms 2.2s]"; fmt.Sprint(src.starts) != want {
			t.Errorf("attempts started at %v, want %v", src.starts, want)
		}
		if fmt.Sprint(waits) != "[600ms 1.4s]" {
			t.Errorf("bucket waits %v, want [600ms 1.4s]", waits)
		}
		if got := b.Available(); got != 14 {
			t.Errorf("available %d, want 14 (the success refunded the last retry)", got)
		}
	})
}

func TestWaitForRefillWithinMaxTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bucket.NewStandard(bucket.StandardOptions{Capacity: 20})
		src := &script{codes: []int{1}, t0: time.Now()}
		s := newStrategy(constant(0))
		s.MaxAttempts = 0
		s.MaxTime = 2 * time.Second
		s.Bucket = b
		s.WaitForRefill = true
		out := s.Run(t.Context(), src)
		var empty *bucket.EmptyError
		if out.End != EndBucket || !errors.As(out.Err, &empty) {
			t.Fatalf("end %v (%v), want an empty bucket", out.End, out.Err)
		}
		// 0s: paid (6 left); at 0s, 8 missing: 800ms; at 0.8s, 14: 1.4s
		// → 2.2s is past the 2s budget: the run ends at 0.8s, paying
		// nothing more.
		if fmt.Sprint(src.starts) != "[0s 0s 800ms]" || out.Elapsed != 800*time.Millisecond {
			t.Errorf("starts %v, elapsed %v", src.starts, out.Elapsed)
		}
		if last := out.Last(); last.Retried || last.Delay != 0 {
			t.Errorf("last record says retried %v after %v", last.Retried, last.Delay)
		}
	})
}

// An adaptive limiter that makes the run wait past its deadline: the
// retry paid for does not run, its cost comes back.
func TestLimiterPastDeadlineRefunds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		b := bucket.NewStandard(bucket.StandardOptions{Now: func() time.Time { return now }})
		s := newStrategy(constant(0))
		s.MaxTime = time.Second
		s.Bucket = b
		s.Limiter = &blockingLimiter{}
		out := s.Run(t.Context(), &script{codes: []int{1}, t0: time.Now()})
		if out.End != EndDeadline {
			t.Fatalf("end %v", out.End)
		}
		if got := b.Available(); got != 500 {
			t.Errorf("available %d, want 500", got)
		}
	})
}

// blockingLimiter lets the first send through and blocks every other one
// until ctx ends.
type blockingLimiter struct{ sent bool }

func (l *blockingLimiter) Wait(ctx context.Context) error {
	if !l.sent {
		l.sent = true
		return nil
	}
	<-ctx.Done()
	return context.Cause(ctx)
}

func (*blockingLimiter) Update(bool) {}
