package bucket

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/retry-dev/retry/internal/testbucket"
)

func TestNewStandardCapacity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want int }{{0, 500}, {-3, 500}, {1, 1}, {20, 20}} {
		b := NewStandard(StandardOptions{Capacity: tc.in, Now: frozenClock})
		if b.Capacity() != tc.want || b.Available() != tc.want {
			t.Errorf("NewStandard(StandardOptions{Capacity: %d, Now: frozenClock}): capacity %d available %d, want %d full", tc.in, b.Capacity(), b.Available(), tc.want)
		}
	}
}

// costCase is a sequence of runs on a fresh bucket of 500 tokens and the
// tokens left after it; Standard and Scope must agree on all of them.
type costCase struct {
	name      string
	run       func(t *testing.T, b Bucket)
	available int
}

var costCases = []costCase{
	{"first-try success refunds 1, capped at capacity", func(t *testing.T, b Bucket) {
		testbucket.Acquire(t, b).NotifySuccess()
	}, 500},
	{"first-try failure costs nothing", func(t *testing.T, b Bucket) {
		testbucket.Acquire(t, b).NotifyFailure()
	}, 500},
	{"retry costs 14", func(t *testing.T, b Bucket) {
		testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 1).NotifyFailure()
	}, 486},
	{"throttling retry costs 5", func(t *testing.T, b Bucket) {
		testbucket.ScheduleN(t, testbucket.Acquire(t, b), true, 1).NotifyFailure()
	}, 495},
	{"success after retries refunds the last one's 14", func(t *testing.T, b Bucket) {
		testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 3).NotifySuccess()
	}, 500 - 3*14 + 14},
	{"success refunds only the last retry's cost", func(t *testing.T, b Bucket) {
		tok := testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 2)
		testbucket.ScheduleN(t, tok, true, 1).NotifySuccess()
	}, 500 - 2*14 - 5 + 5},
	{"success after a throttling then a normal retry refunds 14", func(t *testing.T, b Bucket) {
		tok := testbucket.ScheduleN(t, testbucket.Acquire(t, b), true, 1)
		testbucket.ScheduleN(t, tok, false, 1).NotifySuccess()
	}, 500 - 5 - 14 + 14},
	{"a first-try success refunds 1 to a bucket below capacity", func(t *testing.T, b Bucket) {
		testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 1).NotifyFailure()
		testbucket.Acquire(t, b).NotifySuccess()
		testbucket.Acquire(t, b).NotifySuccess()
	}, 488},
	{"refunds twice resolve once", func(t *testing.T, b Bucket) {
		tok := testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 2)
		tok.NotifySuccess()
		tok.NotifySuccess()
		tok.NotifyFailure()
	}, 486},
}

func TestStandardCosts(t *testing.T) {
	t.Parallel()
	for _, tc := range costCases {
		t.Run(tc.name, func(t *testing.T) {
			b := NewStandard(StandardOptions{Capacity: 0, Now: frozenClock})
			tc.run(t, b)
			if got := b.Available(); got != tc.available {
				t.Errorf("available = %d, want %d", got, tc.available)
			}
		})
	}
}

func TestStandardRefundCappedAtCapacity(t *testing.T) {
	t.Parallel()
	b := NewStandard(StandardOptions{Capacity: 30, Now: frozenClock})
	a := testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 1) // 16 left
	c := testbucket.Acquire(t, b)
	c.NotifySuccess() // +1: 17
	if got := b.Available(); got != 17 {
		t.Fatalf("available = %d, want 17", got)
	}
	a.NotifySuccess() // +14 = 31, capped at 30
	if got := b.Available(); got != 30 {
		t.Fatalf("available = %d, want 30 (capped)", got)
	}
}

func TestStandardEmpty(t *testing.T) {
	t.Parallel()
	b := NewStandard(StandardOptions{Capacity: 20, Now: frozenClock})
	tok := testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 1) // 6 left
	next, err := tok.ScheduleRetry(context.Background(), false)
	var empty *EmptyError
	if !errors.As(err, &empty) || next != nil {
		t.Fatalf("ScheduleRetry on 6 tokens = %v, %v; want *EmptyError", next, err)
	}
	if *empty != (EmptyError{Cost: 14, Available: 6, Capacity: 20, Refill: 800 * time.Millisecond}) {
		t.Errorf("EmptyError = %+v", *empty)
	}
	if want := "retry token bucket is empty: a retry costs 14, 6 of 20 left"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	if got := b.Available(); got != 6 {
		t.Errorf("an empty bucket took tokens: available = %d, want 6", got)
	}
	// The throttling cost (5) still fits in 6.
	tok2 := testbucket.ScheduleN(t, testbucket.Acquire(t, b), true, 1)
	if got := b.Available(); got != 1 {
		t.Errorf("available = %d, want 1", got)
	}
	tok2.NotifySuccess()
	if got := b.Available(); got != 6 {
		t.Errorf("available = %d, want 6", got)
	}
}

func TestStandardTokenResolvedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("success twice refunds once", func(t *testing.T) {
		b := NewStandard(StandardOptions{Capacity: 0, Now: frozenClock})
		tok := testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 2) // 472
		tok.NotifySuccess()
		tok.NotifySuccess()
		if got := b.Available(); got != 486 {
			t.Errorf("available = %d, want 486", got)
		}
	})
	t.Run("success after failure refunds nothing", func(t *testing.T) {
		b := NewStandard(StandardOptions{Capacity: 0, Now: frozenClock})
		tok := testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 1)
		tok.NotifyFailure()
		tok.NotifySuccess()
		if got := b.Available(); got != 486 {
			t.Errorf("available = %d, want 486", got)
		}
	})
	t.Run("retry on a resolved token takes nothing", func(t *testing.T) {
		b := NewStandard(StandardOptions{Capacity: 0, Now: frozenClock})
		tok := testbucket.Acquire(t, b)
		if _, err := tok.ScheduleRetry(ctx, false); err != nil {
			t.Fatal(err)
		}
		for _, resolve := range []func(){
			func() {}, // already resolved by the ScheduleRetry above
			tok.NotifySuccess,
			tok.NotifyFailure,
		} {
			resolve()
			if next, err := tok.ScheduleRetry(ctx, false); !errors.Is(err, ErrTokenResolved) || next != nil {
				t.Errorf("ScheduleRetry on a resolved token = %v, %v; want ErrTokenResolved", next, err)
			}
		}
		if got := b.Available(); got != 486 {
			t.Errorf("available = %d, want 486", got)
		}
	})
	t.Run("an empty bucket leaves the token unresolved", func(t *testing.T) {
		b := NewStandard(StandardOptions{Capacity: 10, Now: frozenClock})
		tok := testbucket.Acquire(t, b)
		if _, err := tok.ScheduleRetry(ctx, false); err == nil {
			t.Fatal("ScheduleRetry on 10 tokens succeeded")
		}
		// The caller may try again (a cheaper throttling retry fits).
		next, err := tok.ScheduleRetry(ctx, true)
		if err != nil {
			t.Fatalf("second ScheduleRetry = %v, want a token", err)
		}
		if _, err := tok.ScheduleRetry(ctx, true); !errors.Is(err, ErrTokenResolved) {
			t.Errorf("third ScheduleRetry = %v, want ErrTokenResolved", err)
		}
		next.NotifyFailure()
		if got := b.Available(); got != 5 {
			t.Errorf("available = %d, want 5", got)
		}
	})
}

// runMany runs n runs concurrently; each calls run with its own token.
func runMany(n int, run func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { run(i) })
	}
	wg.Wait()
}

func TestStandardConcurrentRuns(t *testing.T) {
	t.Parallel()
	// 40 runs each retry once (14) and once after throttling (5), then
	// succeed, refunding 5: 500 - 40*19 would not fit, so use 20 runs:
	// 500 - 20*19 + 20*5 = 220, whatever the interleaving.
	b := NewStandard(StandardOptions{Capacity: 0, Now: frozenClock})
	runMany(20, func(int) {
		tok, _ := b.Acquire(context.Background())
		tok, err := tok.ScheduleRetry(context.Background(), false)
		if err != nil {
			t.Error(err)
			return
		}
		tok, err = tok.ScheduleRetry(context.Background(), true)
		if err != nil {
			t.Error(err)
			return
		}
		tok.NotifySuccess()
	})
	if got := b.Available(); got != 220 {
		t.Errorf("available = %d, want 220", got)
	}
}

func TestStandardConcurrentContention(t *testing.T) {
	t.Parallel()
	// 100 runs each want one retry of 14 from 500 tokens: exactly
	// floor(500/14) = 35 get it, 10 tokens are left, and the 65 others see
	// an *EmptyError whose numbers are consistent.
	b := NewStandard(StandardOptions{Capacity: 0, Now: frozenClock})
	var mu sync.Mutex
	granted, empties := 0, 0
	runMany(100, func(int) {
		tok, _ := b.Acquire(context.Background())
		_, err := tok.ScheduleRetry(context.Background(), false)
		mu.Lock()
		defer mu.Unlock()
		var empty *EmptyError
		switch {
		case err == nil:
			granted++
		case errors.As(err, &empty):
			empties++
			if empty.Cost != 14 || empty.Capacity != 500 || empty.Available >= 14 || empty.Available < 0 {
				t.Errorf("EmptyError = %+v", *empty)
			}
		default:
			t.Error(err)
		}
	})
	if granted != 35 || empties != 65 || b.Available() != 10 {
		t.Errorf("granted %d, empty %d, available %d; want 35, 65, 10", granted, empties, b.Available())
	}
}

func TestNoOp(t *testing.T) {
	t.Parallel()
	var b Bucket = NoOp{}
	tok := testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 1000)
	tok.NotifySuccess()
}

// frozenClock is a clock that never moves: the bucket never refills, so
// the tests of costs and refunds see exact counts however slow the
// machine.
func frozenClock() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
