package bucket

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/internal/testbucket"
)

// drain takes n retries of RetryCost from b, each on a fresh run.
func drain(t *testing.T, b Bucket, n int) {
	t.Helper()
	for range n {
		testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 1).NotifyFailure()
	}
}

// refillSteps is the exact refill schedule both the in-memory bucket and
// the scope file must follow: whole tokens, one every 100ms, the remainder
// of an interval kept, capped at capacity.
func refillSteps(t *testing.T, b Bucket, available func() int) {
	t.Helper()
	check := func(when string, want int) {
		t.Helper()
		if got := available(); got != want {
			t.Errorf("%s: available = %d, want %d", when, got, want)
		}
	}
	drain(t, b, 35) // 500 - 490
	check("drained", 10)
	time.Sleep(time.Second)
	check("after 1s", 20)
	time.Sleep(50 * time.Millisecond)
	check("after 50ms more", 20)
	time.Sleep(60 * time.Millisecond)
	check("after 110ms in all", 21) // 10ms of the next token kept
	time.Sleep(90 * time.Millisecond)
	check("after 200ms in all", 22)
	// An empty bucket says how long the refill takes, and it does.
	drain(t, b, 1) // 8 left
	_, err := testbucket.Acquire(t, b).ScheduleRetry(context.Background(), false)
	var empty *EmptyError
	if !errors.As(err, &empty) || empty.Available != 8 || empty.Refill != 600*time.Millisecond {
		t.Fatalf("ScheduleRetry on 8 tokens = %+v, want empty, refill in 600ms", err)
	}
	time.Sleep(empty.Refill - time.Nanosecond)
	check("1ns before the refill", 13)
	time.Sleep(time.Nanosecond)
	drain(t, b, 1)
	check("the retry paid after the refill", 0)
	// Idle long enough, the bucket is full again and stays capped.
	time.Sleep(49*time.Second + 900*time.Millisecond)
	check("after 49.9s", 499)
	time.Sleep(time.Hour)
	check("after an hour", 500)
}

func TestStandardRefill(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := NewStandard(StandardOptions{})
		refillSteps(t, b, b.Available)
	})
}

func TestRefillClockBack(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewStandard(StandardOptions{Now: func() time.Time { return now }})
	drain(t, b, 10) // 360
	now = now.Add(-time.Hour)
	if got := b.Available(); got != 360 {
		t.Errorf("clock back: available = %d, want 360", got)
	}
	now = now.Add(300 * time.Millisecond)
	if got := b.Available(); got != 363 {
		t.Errorf("300ms after the clock went back: available = %d, want 363", got)
	}
}

func TestTokenCancel(t *testing.T) {
	t.Parallel()
	b := NewStandard(StandardOptions{Now: frozenClock})
	first := testbucket.Acquire(t, b)
	first.Cancel() // a first attempt's token took nothing: gives nothing
	if got := b.Available(); got != 500 {
		t.Errorf("cancel of a first token: available = %d, want 500", got)
	}
	tok := testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 2) // 472
	tok.Cancel()                                                       // the second retry will not run: +14
	if got := b.Available(); got != 486 {
		t.Errorf("after cancel: available = %d, want 486", got)
	}
	tok.Cancel()
	tok.NotifySuccess()
	if got := b.Available(); got != 486 {
		t.Errorf("a cancelled token resolved again: available = %d, want 486", got)
	}
	thr := testbucket.ScheduleN(t, testbucket.Acquire(t, b), true, 1) // 481
	thr.Cancel()
	if got := b.Available(); got != 486 {
		t.Errorf("cancel of a throttling retry: available = %d, want 486", got)
	}
}
