package file

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/internal/testbucket"
	"github.com/retry-dev/retry/internal/testdir"
)

// frozenClock is a clock that never moves: no refill between operations.
func frozenClock() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// TestScopeRefillMatchesStandard runs the same retries and pauses on a
// scope file and on bucket.Standard, in one synctest bubble, and checks
// that both hold the same tokens after each step and refuse the same
// retries with the same refill time: the scope file keeps the AWS SDKs'
// refill (one token every RefillInterval, the remainder of an interval
// kept, capped at capacity) exactly as the in-memory bucket does.
func TestScopeRefillMatchesStandard(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	synctest.Test(t, func(t *testing.T) {
		mem := bucket.NewStandard(bucket.StandardOptions{})
		s, err := OpenScope(dir, "s", ScopeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			retries int
			pause   time.Duration
		}{{35, time.Second}, {0, 50 * time.Millisecond}, {0, 60 * time.Millisecond}, {0, 90 * time.Millisecond},
			{1, 0}, {1, 600*time.Millisecond - time.Nanosecond}, {0, time.Nanosecond}, {1, 0},
			{0, 49*time.Second + 900*time.Millisecond}, {0, time.Hour}}
		for i, st := range steps {
			for _, b := range []bucket.Bucket{mem, s} {
				for range st.retries {
					if next, err := testbucket.Acquire(t, b).ScheduleRetry(context.Background(), false); err == nil {
						next.NotifyFailure()
					}
				}
			}
			_, errMem := testbucket.Acquire(t, mem).ScheduleRetry(context.Background(), true)
			_, errScope := testbucket.Acquire(t, s).ScheduleRetry(context.Background(), true)
			var em, es *bucket.EmptyError
			if errors.As(errMem, &em) != errors.As(errScope, &es) || (em != nil && *em != *es) {
				t.Fatalf("step %d: a throttling retry on the bucket: %v, on the scope: %v", i, errMem, errScope)
			}
			if got, want := scopeAvailable(t, s), mem.Available(); got != want {
				t.Fatalf("step %d: the scope holds %d tokens, the bucket %d", i, got, want)
			}
			time.Sleep(st.pause)
		}
		if got := scopeAvailable(t, s); got != 500 {
			t.Errorf("after an hour the scope holds %d, want 500", got)
		}
		// A new process of the scope (another Scope value) sees the same.
		other, err := OpenScope(dir, "s", ScopeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := scopeAvailable(t, other); got != 500 {
			t.Errorf("another value sees %d, want 500", got)
		}
	})
}

func TestSharedOverScope(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	a := bucket.NewShared(openScope(t, dir, "s", 0), bucket.SharedOptions{})
	b := bucket.NewShared(openScope(t, dir, "s", 0), bucket.SharedOptions{})
	testbucket.ScheduleN(t, testbucket.Acquire(t, a), false, 2).NotifyFailure()
	testbucket.ScheduleN(t, testbucket.Acquire(t, b), true, 2).NotifyFailure()
	if got := scopeAvailable(t, openScope(t, dir, "s", 0)); got != 500-28-10 {
		t.Errorf("two Shared on one scope: available %d, want %d", got, 500-28-10)
	}
}

// runMany runs n runs concurrently; each calls run with its own token.
func runMany(n int, run func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { run(i) })
	}
	wg.Wait()
}
