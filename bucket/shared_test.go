package bucket

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/retry-dev/retry/internal/testbucket"
)

// flakyStore is a Store whose calls fail once broken is set; while working
// it keeps a quota on a frozen clock.
type flakyStore struct {
	q      Quota
	broken error
	calls  int
}

func (f *flakyStore) Take(_ context.Context, cost int) error {
	f.calls++
	if f.broken != nil {
		return f.broken
	}
	return f.q.Take(frozenClock(), cost, 0)
}

func (f *flakyStore) Give(_ context.Context, n int) error {
	f.calls++
	if f.broken != nil {
		return f.broken
	}
	f.q.Give(frozenClock(), n)
	return nil
}

func (f *flakyStore) Send(context.Context) (bool, time.Duration, error) {
	f.calls++
	return f.broken == nil, 0, f.broken
}

func (f *flakyStore) Record(context.Context, bool) error {
	f.calls++
	return f.broken
}

func TestSharedFallsBackOnce(t *testing.T) {
	t.Parallel()
	store := &flakyStore{q: Quota{Capacity: 20, Available: 20, RefilledAt: frozenClock()}}
	var warned []error
	s := NewShared(store, SharedOptions{Now: frozenClock, OnError: func(err error) { warned = append(warned, err) }})

	// An empty store is an answer, not a failure.
	tok := testbucket.ScheduleN(t, testbucket.Acquire(t, s), false, 1) // store: 6
	if _, err := tok.ScheduleRetry(context.Background(), false); !errors.As(err, new(*EmptyError)) {
		t.Fatalf("ScheduleRetry on 6 tokens = %v, want *EmptyError", err)
	}
	if s.Failed() || len(warned) != 0 {
		t.Fatalf("an empty bucket counted as a store failure: %v", warned)
	}

	// The store breaks: one warning, then a full per-process bucket.
	store.broken = errors.New("connection refused")
	next, err := tok.ScheduleRetry(context.Background(), false)
	if err != nil {
		t.Fatalf("ScheduleRetry after the store broke = %v, want the per-process bucket to pay", err)
	}
	next.NotifySuccess()
	if err := s.Wait(context.Background()); err != nil {
		t.Errorf("Wait after the store broke = %v", err)
	}
	s.Update(true)
	testbucket.ScheduleN(t, testbucket.Acquire(t, s), false, 3).NotifyFailure()
	if len(warned) != 1 || warned[0] != store.broken || !s.Failed() {
		t.Errorf("warnings = %v, want the first error once", warned)
	}
	if store.calls != 3 {
		t.Errorf("the broken store was called %d times, want 3 (once broken, never again)", store.calls)
	}
	if got := s.local.Available(); got != 500-3*14 {
		t.Errorf("per-process bucket holds %d, want %d", got, 500-3*14)
	}
	// The per-process limiter got the throttle.
	if !s.limiter.Stats().Enabled {
		t.Error("the per-process limiter did not record the throttle")
	}
}
