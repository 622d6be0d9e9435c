package bucket

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/internal/testbucket"
)

// A run that waits for the refill keeps WaitReserve back: of a full bucket
// of 500 it spends the top 50, three retries of 14; the fourth waits for
// the refill (0.6 s for the 6 tokens missing), and a success's refund pays
// the next one at once. The clock is synctest's: the schedule is exact.
func TestStandardWaitReserve(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		reserve := WaitReserve(DefaultCapacity)
		if reserve != 450 {
			t.Fatalf("WaitReserve(500) = %d, want 450", reserve)
		}
		b := NewStandard(StandardOptions{Reserve: reserve})
		tok := testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 3) // 500 → 458
		if got := b.Available(); got != 458 {
			t.Fatalf("available after three retries = %d, want 458", got)
		}
		next, err := tok.ScheduleRetry(ctx, false)
		var empty *EmptyError
		if !errors.As(err, &empty) || next != nil {
			t.Fatalf("fourth retry = %v, %v; want *EmptyError", next, err)
		}
		if *empty != (EmptyError{Cost: 14, Reserve: 450, Available: 458, Capacity: 500, Refill: 600 * time.Millisecond}) {
			t.Errorf("EmptyError = %+v", *empty)
		}
		if want := "retry token bucket is low: a retry costs 14 above a reserve of 450, 458 of 500 left"; err.Error() != want {
			t.Errorf("Error() = %q, want %q", err, want)
		}
		time.Sleep(599 * time.Millisecond)
		if _, err := tok.ScheduleRetry(ctx, false); !errors.As(err, &empty) || empty.Refill != time.Millisecond {
			t.Fatalf("after 599ms: %v; want an *EmptyError 1ms from the refill", err)
		}
		time.Sleep(time.Millisecond)
		tok, err = tok.ScheduleRetry(ctx, false) // 464 → 450
		if err != nil {
			t.Fatalf("after 600ms: %v", err)
		}
		// Its success refunds 14: the next run's retry pays at once.
		tok.NotifySuccess()
		if _, err := testbucket.Acquire(t, b).ScheduleRetry(ctx, false); err != nil {
			t.Fatalf("after a refund: %v", err)
		}
		// A throttling retry (5) needs 455.
		if _, err := testbucket.Acquire(t, b).ScheduleRetry(ctx, true); !errors.As(err, &empty) || empty.Refill != 500*time.Millisecond {
			t.Fatalf("throttling retry on 450: %v; want an *EmptyError 500ms from the refill", err)
		}
	})
}

// Without a reserve (--when-empty fail, the default) the whole bucket is
// spent: 35 retries of 14 from 500.
func TestStandardNoReserve(t *testing.T) {
	t.Parallel()
	b := NewStandard(StandardOptions{Now: frozenClock})
	tok := testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 35)
	if _, err := tok.ScheduleRetry(context.Background(), false); err == nil || b.Available() != 10 {
		t.Fatalf("36th retry: %v with %d left; want an empty bucket with 10", err, b.Available())
	}
}
