package bucket

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/internal/testbucket"
)

// floatEqual compares within 1e-15, the tolerance of the SDKs' own tests.
func floatEqual(a, b float64) bool {
	return math.Abs(a-b) < 1e-15
}

// The CUBIC test vectors of the AWS SDKs (botocore's test_throttling.py and
// aws-sdk-go-v2's adaptive_ratelimit_test.go): W_max = 10 and a throttle at
// t = 5s. By hand: K = cbrt(10·(1-0.7)/0.4) = cbrt(7.5) = 1.9574338205844317,
// so at t = 5 the rate is 0.4·(0-K)³ + 10 = 10 - 0.4·7.5 = 7; at t = 7 it is
// 0.4·(2-K)³ + 10 = 10 + 0.4·0.0425662³ = 10.0000308…; after a throttle the
// rate is 0.7 times the rate in use (9.64893600966·0.7 = 6.754255206761999).
func TestCubicVectors(t *testing.T) {
	t.Parallel()
	type step struct {
		throttled bool
		at        int64 // Unix seconds
		rate      float64
	}
	tests := map[string][]step{
		"success": {
			{false, 5, 7},
			{false, 6, 9.64893600966},
			{false, 7, 10.000030849917364},
			{false, 8, 10.453284520772092},
			{false, 9, 13.408697022224185},
			{false, 10, 21.26626835427364},
			{false, 11, 36.425998516920465},
		},
		"mixed": {
			{false, 5, 7},
			{false, 6, 9.64893600966},
			{true, 7, 6.754255206761999},
			{true, 8, 4.727978644733399},
			{false, 9, 4.670125557970046},
			{false, 10, 4.770870456867401},
			{false, 11, 6.011819748005445},
			{false, 12, 10.792973431384178},
		},
	}
	for name, steps := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewAdaptiveState(time.Unix(0, 0))
			s.LastMaxRate = 10
			s.LastThrottle = time.Unix(5, 0)
			var rate float64
			for _, st := range steps {
				now := time.Unix(st.at, 0)
				s.calculateTimeWindow()
				if st.throttled {
					rate = s.cubicThrottle(rate)
					s.LastThrottle = now
					s.LastMaxRate = rate
				} else {
					rate = s.cubicSuccess(now)
				}
				if !floatEqual(rate, st.rate) {
					t.Errorf("t=%ds throttled=%v: rate %v, want %v", st.at, st.throttled, rate, st.rate)
				}
			}
		})
	}
}

func TestCalculateTimeWindow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ wmax, k float64 }{
		{0, 0},
		{10, 1.9574338205844317},        // cbrt(7.5)
		{8, 1.8171205928321397},         // cbrt(6), botocore's test_error_response_decreases_rate_by_beta
		{1.6 / 0.3, 1.5874010519681994}, // cbrt(1.6/0.3·0.3/0.4) = cbrt(4)
	} {
		s := AdaptiveState{LastMaxRate: tc.wmax}
		s.calculateTimeWindow()
		if !floatEqual(s.TimeWindow, tc.k) {
			t.Errorf("K(W_max=%v) = %v, want %v", tc.wmax, s.TimeWindow, tc.k)
		}
	}
}

// The measured-rate and fill-rate vectors of aws-sdk-go-v2
// (TestAdaptiveRateLimit_Update): a limiter created at Unix 0, one response
// every 200ms. By hand for the first rows: responses at 0.2s and 0.4s fall
// in the bucket [0, 0.5) (no measurement yet); the one at 0.6s closes it
// with 3 responses over 0.5s = 6/s, smoothed 0.8·6 + 0.2·0 = 4.8. The fill
// rate stays at the 0.5 floor until CUBIC from W_max = 0, K = 0 gives
// 0.4·1.2³ = 0.6912 at 1.2s. The throttle at 2.0s cuts 0.7·min(4.3264,
// 4.3264 measured) = 3.02848.
func TestAdaptiveUpdateVectors(t *testing.T) {
	t.Parallel()
	steps := []struct {
		throttled bool
		ms        int64
		measured  float64
		fill      float64
	}{
		{false, 200, 0, 0.5},
		{false, 400, 0, 0.5},
		{false, 600, 4.8, 0.5},
		{false, 800, 4.8, 0.5},
		{false, 1000, 4.16, 0.5},
		{false, 1200, 4.16, 0.6912},
		{false, 1400, 4.16, 1.0976},
		{false, 1600, 5.632, 1.6384},
		{false, 1800, 5.632, 2.3328},
		{true, 2000, 4.3264, 3.02848},
		{false, 2200, 4.3264, 3.4866391734702598},
		{false, 2400, 4.3264, 3.8218744160402554},
		{false, 2600, 5.665280, 4.053385727709987},
		{false, 2800, 5.665280, 4.200373108479455},
		{false, 3000, 4.333056, 4.282036558348658},
		{true, 3200, 4.333056, 2.99742559084406},
		{false, 3400, 4.333056, 3.4522263943863463},
	}
	now := time.Unix(0, 0)
	a := NewAdaptive(AdaptiveOptions{Now: func() time.Time { return now }})
	for _, st := range steps {
		now = time.UnixMilli(st.ms)
		a.Update(st.throttled)
		got := a.Stats()
		if !floatEqual(got.MeasuredRate, st.measured) || !floatEqual(got.FillRate, st.fill) {
			t.Errorf("%dms throttled=%v: measured %v fill %v, want %v %v", st.ms, st.throttled, got.MeasuredRate, got.FillRate, st.measured, st.fill)
		}
		if got.Enabled != (st.ms >= 2000) {
			t.Errorf("%dms: enabled = %v", st.ms, got.Enabled)
		}
	}
}

func TestAdaptiveStateValid(t *testing.T) {
	t.Parallel()
	good := NewAdaptiveState(time.Unix(100, 0))
	if !good.Valid() {
		t.Fatal("fresh state invalid")
	}
	throttled := good
	throttled.Update(time.Unix(101, 0), true)
	if !throttled.Valid() {
		t.Fatalf("state after a throttle invalid: %+v", throttled)
	}
	for name, mutate := range map[string]func(*AdaptiveState){
		"NaN fill rate":         func(s *AdaptiveState) { s.FillRate = math.NaN() },
		"negative tokens":       func(s *AdaptiveState) { s.Tokens = -1 },
		"infinite rate":         func(s *AdaptiveState) { s.CalculatedRate = math.Inf(1) },
		"negative count":        func(s *AdaptiveState) { s.RequestCount = -1 },
		"infinite max rate":     func(s *AdaptiveState) { s.LastMaxRate = math.Inf(1) },
		"negative capacity":     func(s *AdaptiveState) { s.Capacity = -2 },
		"NaN measured":          func(s *AdaptiveState) { s.MeasuredRate = math.NaN() },
		"negative window":       func(s *AdaptiveState) { s.TimeWindow = -1 },
		"negative bucket":       func(s *AdaptiveState) { s.RateBucket = -1 },
		"infinite bucket":       func(s *AdaptiveState) { s.RateBucket = math.Inf(1) },
		"NaN calculated":        func(s *AdaptiveState) { s.CalculatedRate = math.NaN() },
		"infinite fill rate":    func(s *AdaptiveState) { s.FillRate = math.Inf(-1) },
		"enabled, capacity < 1": func(s *AdaptiveState) { s.Enabled, s.FillRate, s.Capacity = true, 1, 0.5 },
		"enabled, fill < 0.5":   func(s *AdaptiveState) { s.Enabled, s.FillRate, s.Capacity = true, 0.25, 1 },
	} {
		s := good
		mutate(&s)
		if s.Valid() {
			t.Errorf("%s: valid", name)
		}
	}
}

func TestAdaptiveClockBack(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	a := NewAdaptive(AdaptiveOptions{Now: func() time.Time { return now }})
	a.Update(true) // enabled; fill 0.5, capacity 1, 0 tokens, refilled at 1000s
	now = time.Unix(500, 0)
	a.Update(false)
	if got := a.Stats(); got.Tokens != 0 || got.FillRate < AdaptiveMinFillRate {
		t.Errorf("after the clock went back: %+v; want no tokens added, fill ≥ 0.5", got)
	}
	a.mu.Lock()
	bucket := a.st.RateBucket
	a.mu.Unlock()
	if bucket != 500 {
		t.Errorf("rate bucket = %v, want 500 (restarted)", bucket)
	}
}

func TestAdaptivePacing(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		since := func() time.Duration { return time.Since(start) }
		a := NewAdaptive(AdaptiveOptions{})

		// No throttle seen: sends are not paced.
		for range 100 {
			testbucket.MustWait(t, a)
		}
		if d := since(); d != 0 {
			t.Fatalf("unpaced Waits took %v", d)
		}

		// Four throttles at 0s bring the fill rate to the 0.5/s floor and
		// the bucket (capacity 1) starts empty: one send every 2s.
		testbucket.ThrottleToFloor(a)
		if got := a.Stats(); !got.Enabled || got.FillRate != 0.5 || got.Tokens != 0 {
			t.Fatalf("after the throttle: %+v", got)
		}
		testbucket.MustWait(t, a)
		if d := since(); d != 2*time.Second {
			t.Fatalf("first paced send at %v, want 2s", d)
		}
		testbucket.MustWait(t, a)
		if d := since(); d != 4*time.Second {
			t.Fatalf("second paced send at %v, want 4s", d)
		}

		// A success at 4s: 5 responses over [0s, 4s) measure 1.25/s,
		// smoothed 0.8·1.25 = 1/s; CUBIC from W_max = 0.5488 (the rate the
		// last throttle cut) gives 0.4·(4-K)³ + 0.5488 ≈ 14.4/s, held to
		// twice the measured rate: 2/s. The next token comes 1/2 = 0.5s
		// later.
		a.Update(false)
		if got := a.Stats(); !floatEqual(got.MeasuredRate, 1) || !floatEqual(got.FillRate, 2) {
			t.Fatalf("after the success: %+v", got)
		}
		testbucket.MustWait(t, a)
		if d := since(); d != 4500*time.Millisecond {
			t.Fatalf("third paced send at %v, want 4.5s", d)
		}

		// A Wait cancelled after 0.25s returns the cause and takes nothing:
		// at 4.75s the bucket holds 0.25·2 = 0.5, so the next send is
		// 0.5/2 = 0.25s later, at 5s.
		cause := errors.New("interrupted")
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(250*time.Millisecond, func() { cancel(cause) })
		if err := a.Wait(ctx); err != cause {
			t.Fatalf("cancelled Wait = %v, want %v", err, cause)
		}
		if d := since(); d != 4750*time.Millisecond {
			t.Fatalf("cancelled Wait returned at %v, want 4.75s", d)
		}
		testbucket.MustWait(t, a)
		if d := since(); d != 5*time.Second {
			t.Fatalf("send after the cancelled Wait at %v, want 5s", d)
		}

		// A Wait on a done context returns its cause without a token.
		if err := a.Wait(ctx); err != cause {
			t.Fatalf("Wait on a done ctx = %v, want %v", err, cause)
		}
	})
}

// TestAdaptiveFleetFirstThrottle: a fleet that starts at once sees its
// first throttle within the first half-second, before the SDKs' measured
// rate exists. 10 successes and a throttle at one instant: the open bucket
// already proves 11 responses per half-second, 0.8·22 = 17.6/s smoothed,
// so the throttle cuts to 0.7·17.6 = 12.32/s (the SDKs, from a measured
// rate of 0, to the 0.5/s floor). A second throttle of the same burst cuts
// the fill rate again: 0.7·12.32 = 8.624/s.
func TestAdaptiveFleetFirstThrottle(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		a := NewAdaptive(AdaptiveOptions{})
		for range 10 {
			a.Update(false)
		}
		if got := a.Stats(); got.Enabled || got.MeasuredRate != 0 || got.FillRate != AdaptiveMinFillRate {
			t.Fatalf("after 10 successes: %+v", got)
		}
		a.Update(true)
		if got := a.Stats(); !got.Enabled || got.MeasuredRate != 0 || !floatEqual(got.FillRate, 12.32) || got.Tokens != 0 {
			t.Fatalf("after the throttle: %+v", got)
		}
		// The bucket starts empty: sends at k/12.32s (81.168831…ms),
		// rounded up to the nanosecond.
		for _, want := range []time.Duration{81168832, 162337663} {
			testbucket.MustWait(t, a)
			if d := time.Since(start); d != want {
				t.Fatalf("send at %v, want %v", d, want)
			}
		}
		a.Update(true)
		if got := a.Stats(); math.Abs(got.FillRate-8.624) > 1e-12 {
			t.Fatalf("after the second throttle: %+v", got)
		}
	})
}

func TestAdaptiveConcurrentWaiters(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a := NewAdaptive(AdaptiveOptions{})
		testbucket.ThrottleToFloor(a) // 0.5/s, empty bucket of 1
		rec := &testbucket.Times{Start: time.Now()}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				testbucket.MustWait(t, a)
				rec.Mark()
			})
		}
		wg.Wait()
		want := []time.Duration{2 * time.Second, 4 * time.Second, 6 * time.Second, 8 * time.Second}
		if got := rec.Get(); !slices.Equal(got, want) {
			t.Errorf("sends at %v, want %v", got, want)
		}
	})
}

func TestAdaptiveInjectedClock(t *testing.T) {
	t.Parallel()
	// A fake clock and sleep: Wait sleeps exactly what the bucket needs.
	now := time.Unix(0, 0)
	var slept []time.Duration
	a := NewAdaptive(AdaptiveOptions{
		Now: func() time.Time { return now },
		Sleep: func(_ context.Context, d time.Duration) error {
			slept = append(slept, d)
			now = now.Add(d)
			return nil
		},
	})
	testbucket.ThrottleToFloor(a)
	testbucket.MustWait(t, a)
	testbucket.MustWait(t, a)
	if want := []time.Duration{2 * time.Second, 2 * time.Second}; !slices.Equal(slept, want) {
		t.Errorf("slept %v, want %v", slept, want)
	}

	// An error from Sleep that is not the context's is returned as is.
	boom := errors.New("boom")
	b := NewAdaptive(AdaptiveOptions{
		Now:   func() time.Time { return now },
		Sleep: func(context.Context, time.Duration) error { return boom },
	})
	b.Update(true)
	if err := b.Wait(context.Background()); err != boom {
		t.Errorf("Wait = %v, want %v", err, boom)
	}
}

func TestAdaptiveConcurrentRace(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a := NewAdaptive(AdaptiveOptions{})
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				for j := range 10 {
					testbucket.MustWait(t, a)
					a.Update((i+j)%7 == 0)
					_ = a.Stats()
				}
			})
		}
		wg.Wait()
		if got := a.Stats(); !got.Enabled || got.FillRate < AdaptiveMinFillRate {
			t.Errorf("stats %+v", got)
		}
	})
}

func TestSleep(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := Sleep(context.Background(), 3*time.Second); err != nil || time.Since(start) != 3*time.Second {
			t.Fatalf("sleep = %v after %v", err, time.Since(start))
		}
		cause := errors.New("stop")
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		if err := Sleep(ctx, 0); err != cause {
			t.Errorf("sleep(done, 0) = %v", err)
		}
		if err := Sleep(context.Background(), -1); err != nil {
			t.Errorf("sleep(-1) = %v", err)
		}
	})
}

// TestAdaptiveLateGivesUpAtOnce: when the next send token comes after the
// context's deadline, Wait says so at once (a *LateError with the wait),
// takes nothing and sleeps nothing; with time enough it waits as before.
func TestAdaptiveLateGivesUpAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		a := NewAdaptive(AdaptiveOptions{})
		testbucket.ThrottleToFloor(a) // one send every 2s, none in the bucket
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := a.Wait(ctx)
		var late *LateError
		if !errors.As(err, &late) || late.Wait != 2*time.Second {
			t.Fatalf("Wait with 1s left: %v, want a *LateError of 2s", err)
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("Wait slept %v before saying it is late", d)
		}
		ctx3, cancel3 := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel3()
		if err := a.Wait(ctx3); err != nil {
			t.Fatalf("Wait with 3s left: %v", err)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Fatalf("the send came at %v, want 2s", d)
		}
	})
}
