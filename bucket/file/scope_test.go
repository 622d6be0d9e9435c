package file

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/internal/testbucket"
	"github.com/retry-dev/retry/internal/testdir"
)

// scopeChildEnv names the scope directory when the test binary runs as a
// child process of TestScopeAcrossProcesses.
const scopeChildEnv = "RETRY_BUCKET_TEST_SCOPE_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(scopeChildEnv); dir != "" {
		os.Exit(scopeChild(dir))
	}
	os.Exit(m.Run())
}

// scopeChild makes 15 runs on scope "s" in dir, each a retry (14), a
// throttling retry (5) and a success (refund 5): 14 tokens net per run.
func scopeChild(dir string) int {
	s, err := OpenScope(dir, "s", ScopeOptions{Capacity: 1000, Now: frozenClock})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	for range 15 {
		tok, err := s.Acquire(ctx)
		if err == nil {
			tok, err = tok.ScheduleRetry(ctx, false)
		}
		if err == nil {
			tok, err = tok.ScheduleRetry(ctx, true)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		tok.NotifySuccess()
	}
	if err := s.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestScopeAcrossProcesses runs 4 real processes (this test binary) on one
// scope: 60 runs of 14 tokens net leave 1000 - 840 = 160.
func TestScopeAcrossProcesses(t *testing.T) {
	dir := testdir.New(t)
	var cmds []*exec.Cmd
	for range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), scopeChildEnv+"="+dir)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
	}
	if got := scopeAvailable(t, openScope(t, dir, "s", 1000)); got != 160 {
		t.Errorf("available = %d, want 160", got)
	}
}

func openScope(t *testing.T, dir, name string, capacity int) *Scope {
	t.Helper()
	s, err := OpenScope(dir, name, ScopeOptions{Capacity: capacity, Now: frozenClock})
	if err != nil {
		t.Fatalf("OpenScope: %v", err)
	}
	return s
}

func scopeAvailable(t *testing.T, s *Scope) int {
	t.Helper()
	n, err := s.Available()
	if err != nil {
		t.Fatalf("Available: %v", err)
	}
	return n
}

func TestOpenScopeNames(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	for _, name := range []string{"", "a/b", "../x", "/abs", `a\b`, "a\x00b", "x/"} {
		if s, err := OpenScope(dir, name, ScopeOptions{Capacity: 0, Now: frozenClock}); !errors.Is(err, bucket.ErrScopeName) || s != nil {
			t.Errorf("OpenScope(%q) = %v, %v; want ErrScopeName", name, s, err)
		}
	}
	for _, name := range []string{"deploy", "ci.prod", "..x", "with space", "ünïcode"} {
		s, err := OpenScope(dir, name, ScopeOptions{Capacity: 0, Now: frozenClock})
		if err != nil {
			t.Errorf("OpenScope(%q): %v", name, err)
			continue
		}
		if want := filepath.Join(dir, name+".json"); s.Path() != want {
			t.Errorf("Path() = %q, want %q", s.Path(), want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 5 {
		t.Errorf("dir holds %d entries, want 5 (refused names create nothing)", len(entries))
	}
	if _, err := OpenScope("", "x", ScopeOptions{Capacity: 0, Now: frozenClock}); err == nil {
		t.Error("OpenScope with an empty dir succeeded")
	}
}

// TestScopeCosts makes the same runs on a scope file and on
// bucket.Standard (whose tests state each cost) and checks that both hold
// the same tokens after each: a retry costs 14, a throttling retry 5, a
// success refunds the last retry's cost or 1 after a first try, never
// beyond capacity.
func TestScopeCosts(t *testing.T) {
	t.Parallel()
	runs := map[string]func(t *testing.T, b bucket.Bucket){
		"first-try success": func(t *testing.T, b bucket.Bucket) { testbucket.Acquire(t, b).NotifySuccess() },
		"first-try failure": func(t *testing.T, b bucket.Bucket) { testbucket.Acquire(t, b).NotifyFailure() },
		"a retry": func(t *testing.T, b bucket.Bucket) {
			testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 1).NotifyFailure()
		},
		"a throttling retry": func(t *testing.T, b bucket.Bucket) {
			testbucket.ScheduleN(t, testbucket.Acquire(t, b), true, 1).NotifyFailure()
		},
		"success after three": func(t *testing.T, b bucket.Bucket) {
			testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 3).NotifySuccess()
		},
		"success after a throttling": func(t *testing.T, b bucket.Bucket) {
			testbucket.ScheduleN(t, testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 2), true, 1).NotifySuccess()
		},
		"a cancelled retry": func(t *testing.T, b bucket.Bucket) {
			testbucket.ScheduleN(t, testbucket.Acquire(t, b), false, 1).Cancel()
		},
	}
	for name, run := range runs {
		t.Run(name, func(t *testing.T) {
			mem := bucket.NewStandard(bucket.StandardOptions{Now: frozenClock})
			s := openScope(t, testdir.New(t), "s", 0)
			for range 2 { // the second time on a bucket below capacity
				run(t, mem)
				run(t, s)
				if got, want := scopeAvailable(t, s), mem.Available(); got != want {
					t.Errorf("the scope holds %d, the bucket %d", got, want)
				}
			}
			if err := s.Err(); err != nil {
				t.Errorf("Err() = %v", err)
			}
		})
	}
}

func TestScopeEmpty(t *testing.T) {
	t.Parallel()
	s := openScope(t, testdir.New(t), "s", 20)
	tok := testbucket.ScheduleN(t, testbucket.Acquire(t, s), false, 1) // 6 left
	_, err := tok.ScheduleRetry(context.Background(), false)
	var empty *bucket.EmptyError
	if !errors.As(err, &empty) || *empty != (bucket.EmptyError{Cost: 14, Available: 6, Capacity: 20, Refill: 800 * time.Millisecond}) {
		t.Fatalf("ScheduleRetry = %+v, want *bucket.EmptyError{14, 6, 20, 800ms}", err)
	}
	if got := scopeAvailable(t, s); got != 6 {
		t.Errorf("available = %d, want 6", got)
	}
}

func TestScopeSharedBetweenValues(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	a := openScope(t, dir, "s", 0)
	b := openScope(t, dir, "s", 0)
	other := openScope(t, dir, "other", 0)
	tok := testbucket.ScheduleN(t, testbucket.Acquire(t, a), false, 2) // 472
	if got := scopeAvailable(t, b); got != 472 {
		t.Errorf("b sees %d, want 472", got)
	}
	if got := scopeAvailable(t, other); got != 500 {
		t.Errorf("another scope sees %d, want 500", got)
	}
	tok.NotifySuccess()
	if got := scopeAvailable(t, b); got != 486 {
		t.Errorf("b sees %d after the refund, want 486", got)
	}
	// A process with a smaller capacity clamps the shared bucket.
	small := openScope(t, dir, "s", 100)
	if got := scopeAvailable(t, small); got != 100 {
		t.Errorf("capacity 100 sees %d, want 100", got)
	}
	testbucket.ScheduleN(t, testbucket.Acquire(t, small), true, 1).NotifyFailure()
	if got := scopeAvailable(t, a); got != 95 {
		t.Errorf("a sees %d after the clamp and a throttling retry, want 95", got)
	}
}

func TestScopeFileStartsOver(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	s := openScope(t, dir, "s", 0)
	for name, content := range map[string]string{
		"empty":            "",
		"not JSON":         "garbage",
		"other version":    `{"version":2,"bucket":{"capacity":500,"available":3}}`,
		"negative":         `{"version":1,"bucket":{"capacity":500,"available":-5}}`,
		"removed":          "",
		"invalid adaptive": `{"version":1,"bucket":{"capacity":500,"available":500},"adaptive":{"enabled":true,"fill_rate":0,"capacity":0}}`,
	} {
		if name == "removed" {
			os.Remove(s.Path())
		} else if err := os.WriteFile(s.Path(), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := scopeAvailable(t, s); got != 500 {
			t.Errorf("%s: available %d, want 500", name, got)
		}
	}
	// The invalid adaptive state was dropped: sends are not paced.
	l := s.Limiter(bucket.AdaptiveOptions{Sleep: func(context.Context, time.Duration) error {
		t.Error("Wait slept on a dropped adaptive state")
		return nil
	}})
	if err := l.Wait(context.Background()); err != nil {
		t.Error(err)
	}

	// A state followed by the tail of a longer one (a writer that died
	// before truncating) is still read.
	tail := `{"version":1,"bucket":{"capacity":500,"available":42}}` + "\n" + `,"available":499}}`
	if err := os.WriteFile(s.Path(), []byte(tail), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := scopeAvailable(t, s); got != 42 {
		t.Errorf("state with a torn tail: available %d, want 42", got)
	}
	// Writing truncates the tail.
	testbucket.ScheduleN(t, testbucket.Acquire(t, s), true, 1).NotifyFailure()
	data, _ := os.ReadFile(s.Path())
	if !strings.HasSuffix(string(data), "}\n") || strings.Count(string(data), "\n") != 1 {
		t.Errorf("file after a write: %q", data)
	}
}

func TestScopeErrors(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	s := openScope(t, dir, "s", 0)
	tok := testbucket.ScheduleN(t, testbucket.Acquire(t, s), false, 1)
	// The state file turns into a directory: every operation fails.
	if err := os.Remove(s.Path()); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(s.Path(), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Acquire(context.Background()); err == nil || !strings.Contains(err.Error(), s.Path()) {
		t.Errorf("Acquire = %v, want an error naming the file", err)
	}
	if _, err := scheduleNErr(tok); err == nil {
		t.Error("ScheduleRetry succeeded on a broken scope")
	}
	if s.Err() != nil {
		t.Errorf("Err() = %v before any error without a return", s.Err())
	}
	s.give(14) // a success's refund, which cannot return its error
	l := s.Limiter(bucket.AdaptiveOptions{})
	l.Update(true)
	first := s.Err()
	if first == nil || !strings.Contains(first.Error(), s.Path()) {
		t.Errorf("Err() = %v, want the refund's error", first)
	}
	if err := l.Wait(context.Background()); err == nil {
		t.Error("Wait succeeded on a broken scope")
	}
	if _, err := l.Stats(); err == nil {
		t.Error("Stats succeeded on a broken scope")
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenScope(plain, "x", ScopeOptions{Capacity: 0, Now: frozenClock}); err == nil {
		t.Error("OpenScope in a dir that is a file succeeded")
	}
}

func scheduleNErr(tok bucket.Token) (bucket.Token, error) {
	return tok.ScheduleRetry(context.Background(), false)
}

// TestScopeConcurrentProcesses simulates processes: each goroutine opens
// its own Scope value on the same file, so only the flock keeps them apart.
func TestScopeConcurrentProcesses(t *testing.T) {
	t.Run("no tokens lost", func(t *testing.T) {
		// 12 processes × 4 runs, each run a retry (14), a throttling
		// retry (5) and a success (refund 5): 500 - 48·14 = -172 would not
		// fit, so the capacity is 1000: 1000 - 48·19 + 48·5 = 328.
		dir := testdir.New(t)
		runMany(12, func(int) {
			s, err := OpenScope(dir, "s", ScopeOptions{Capacity: 1000, Now: frozenClock})
			if err != nil {
				t.Error(err)
				return
			}
			for range 4 {
				tok, err := s.Acquire(context.Background())
				if err == nil {
					tok, err = tok.ScheduleRetry(context.Background(), false)
				}
				if err == nil {
					tok, err = tok.ScheduleRetry(context.Background(), true)
				}
				if err != nil {
					t.Error(err)
					return
				}
				tok.NotifySuccess()
			}
			if err := s.Err(); err != nil {
				t.Error(err)
			}
		})
		if got := scopeAvailable(t, openScope(t, dir, "s", 1000)); got != 328 {
			t.Errorf("available = %d, want 328", got)
		}
	})
	t.Run("contention", func(t *testing.T) {
		// 10 processes × 10 runs want one retry of 14 from 500 tokens:
		// exactly 35 get it and 10 tokens are left.
		dir := testdir.New(t)
		var mu sync.Mutex
		granted, empties := 0, 0
		runMany(10, func(int) {
			s, err := OpenScope(dir, "s", ScopeOptions{Capacity: 0, Now: frozenClock})
			if err != nil {
				t.Error(err)
				return
			}
			for range 10 {
				tok, err := s.Acquire(context.Background())
				if err == nil {
					_, err = tok.ScheduleRetry(context.Background(), false)
				}
				var empty *bucket.EmptyError
				mu.Lock()
				switch {
				case err == nil:
					granted++
				case errors.As(err, &empty):
					empties++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		})
		if got := scopeAvailable(t, openScope(t, dir, "s", 0)); granted != 35 || empties != 65 || got != 10 {
			t.Errorf("granted %d, empty %d, available %d; want 35, 65, 10", granted, empties, got)
		}
	})
	t.Run("one value shared by goroutines", func(t *testing.T) {
		s := openScope(t, testdir.New(t), "s", 0)
		runMany(30, func(int) {
			tok, _ := s.Acquire(context.Background())
			if _, err := tok.ScheduleRetry(context.Background(), true); err != nil {
				t.Error(err)
			}
		})
		if got := scopeAvailable(t, s); got != 500-30*5 {
			t.Errorf("available = %d, want %d", got, 500-30*5)
		}
	})
}

func TestScopeLimiterShared(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := testdir.New(t)
		start := time.Now()
		since := func() time.Duration { return time.Since(start) }
		a := openScope(t, dir, "s", 0).Limiter(bucket.AdaptiveOptions{})
		b := openScope(t, dir, "s", 0).Limiter(bucket.AdaptiveOptions{})

		// Nothing throttled yet: neither process is paced.
		for range 5 {
			testbucket.MustWait(t, a)
			testbucket.MustWait(t, b)
		}
		if st, _ := b.Stats(); st.Enabled || since() != 0 {
			t.Fatalf("unthrottled: stats %+v after %v", st, since())
		}

		// Process a is throttled at 0s (to the floor); b is paced too, and
		// the two share one send token every 2s (0.5/s).
		testbucket.ThrottleToFloor(a)
		if st, err := b.Stats(); err != nil || !st.Enabled || st.FillRate != 0.5 || st.Tokens != 0 {
			t.Fatalf("b after a's throttle: %+v, %v", st, err)
		}
		testbucket.MustWait(t, b)
		if d := since(); d != 2*time.Second {
			t.Fatalf("b sent at %v, want 2s", d)
		}
		testbucket.MustWait(t, a)
		if d := since(); d != 4*time.Second {
			t.Fatalf("a sent at %v, want 4s", d)
		}

		// Both wait at once: one gets the token at 6s, the other at 8s.
		rec := &testbucket.Times{Start: start}
		var wg sync.WaitGroup
		for _, l := range []*ScopeLimiter{a, b} {
			wg.Go(func() {
				testbucket.MustWait(t, l)
				rec.Mark()
			})
		}
		wg.Wait()
		if got, want := rec.Get(), []time.Duration{6 * time.Second, 8 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("sends at %v, want %v", got, want)
		}

		// A cancelled Wait returns the cause and takes nothing.
		cause := errors.New("interrupted")
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(time.Second, func() { cancel(cause) })
		if err := a.Wait(ctx); err != cause {
			t.Fatalf("cancelled Wait = %v", err)
		}
		testbucket.MustWait(t, b)
		if d := since(); d != 10*time.Second {
			t.Fatalf("b sent at %v after the cancelled wait, want 10s", d)
		}
	})
}

func TestScopeLimiterMatchesAdaptive(t *testing.T) {
	t.Parallel()
	// The same updates at the same times give the same rates in memory and
	// through the file (JSON keeps float64s and times exactly).
	now := time.Unix(0, 0)
	clock := bucket.AdaptiveOptions{Now: func() time.Time { return now }}
	mem := bucket.NewAdaptive(clock)
	file := openScope(t, testdir.New(t), "s", 0).Limiter(clock)
	if err := file.Wait(context.Background()); err != nil { // starts the scope's clock at 0
		t.Fatal(err)
	}
	for i := range 40 {
		now = time.UnixMilli(int64(i+1) * 150)
		throttled := i%9 == 4
		mem.Update(throttled)
		file.Update(throttled)
		got, err := file.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if want := mem.Stats(); got != want {
			t.Fatalf("update %d: scope %+v, memory %+v", i, got, want)
		}
	}
}

func TestScopeLimiterIdleReset(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := testdir.New(t)
		start := time.Now()
		a := openScope(t, dir, "s", 0).Limiter(bucket.AdaptiveOptions{})
		testbucket.ThrottleToFloor(a) // paced: 0.5/s, empty bucket
		testbucket.MustWait(t, a)     // at 2s; the state was last used then

		// 10 minutes after its last use the state still paces: the bucket
		// refilled to its capacity of 1, and the next send waits 2s.
		time.Sleep(10 * time.Minute)
		testbucket.MustWait(t, a)
		testbucket.MustWait(t, a)
		if d := time.Since(start); d != 2*time.Second+10*time.Minute+2*time.Second {
			t.Fatalf("sends ended at %v", d)
		}

		// Idle for longer, the scope starts over: not paced, as new.
		time.Sleep(10*time.Minute + time.Nanosecond)
		b := openScope(t, dir, "s", 0).Limiter(bucket.AdaptiveOptions{})
		before := time.Now()
		for range 10 {
			testbucket.MustWait(t, b)
		}
		if st, err := b.Stats(); err != nil || st.Enabled || time.Since(before) != 0 {
			t.Fatalf("after idling: %+v, %v, waited %v", st, err, time.Since(before))
		}
	})
}
