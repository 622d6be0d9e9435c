package backoff

import (
	"math"
	"slices"
	"testing"
	"time"
)

// delayCase is one exact expectation: b.Delay(step, r) == want.
type delayCase struct {
	name string
	b    Backoff
	s    Step
	r    Rand
	want time.Duration
}

func runDelayCases(t *testing.T, cases []delayCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.b.Delay(c.s, c.r); got != c.want {
				t.Errorf("Delay(%+v) = %v (%d ns); want %v (%d ns)", c.s, got, int64(got), c.want, int64(c.want))
			}
		})
	}
}

func at(a int) Step { return Step{Attempt: a} }

func TestConstant(t *testing.T) {
	t.Parallel()
	runDelayCases(t, []delayCase{
		{"attempt 1", Constant(2 * time.Second), at(1), nil, 2 * time.Second},
		{"attempt 5", Constant(2 * time.Second), at(5), nil, 2 * time.Second},
		{"attempt 0 is 1", Constant(2 * time.Second), at(0), nil, 2 * time.Second},
		{"attempt MaxInt", Constant(2 * time.Second), at(math.MaxInt), nil, 2 * time.Second},
		{"budget ignored", Constant(2 * time.Second), Step{Attempt: 3, Budgeted: true, Remaining: time.Second}, nil, 2 * time.Second},
		{"zero", Constant(0), at(3), nil, 0},
		{"negative is 0", Constant(-time.Second), at(3), nil, 0},
		{"no randomness", Constant(time.Second), at(3), forbidden{t}, time.Second},
	})
}

func TestLinear(t *testing.T) {
	t.Parallel()
	runDelayCases(t, []delayCase{
		{"attempt 1", Linear(time.Second), at(1), nil, time.Second},
		{"attempt 2", Linear(time.Second), at(2), nil, 2 * time.Second},
		{"attempt 10", Linear(time.Second), at(10), nil, 10 * time.Second},
		{"3ms × 7", Linear(3 * time.Millisecond), at(7), nil, 21 * time.Millisecond},
		{"attempt 0 is 1", Linear(time.Second), at(0), nil, time.Second},
		{"attempt -5 is 1", Linear(time.Second), at(-5), nil, time.Second},
		{"attempt MinInt is 1", Linear(time.Second), at(math.MinInt), nil, time.Second},
		{"zero", Linear(0), at(math.MaxInt), nil, 0},
		{"negative is 0", Linear(-time.Second), at(9), nil, 0},
		{"1ns × MaxInt", Linear(1), at(math.MaxInt), nil, maxDelay},
		{"2ns × largest exact", Linear(2), at(math.MaxInt64 / 2), nil, maxDelay - 1},
		{"2ns × one more saturates", Linear(2), at(math.MaxInt64/2 + 1), nil, maxDelay},
		{"1s × MaxInt saturates", Linear(time.Second), at(math.MaxInt), nil, maxDelay},
		{"max × 2 saturates", Linear(maxDelay), at(2), nil, maxDelay},
		{"no randomness", Linear(time.Second), at(3), forbidden{t}, 3 * time.Second},
	})
}

func TestExponential(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		b    Backoff
		want []time.Duration
	}{
		{"1s ×2", Exponential(time.Second, 2), secs(1, 2, 4, 8, 16, 32, 64, 128)},
		{"1s ×1.5", Exponential(time.Second, 1.5), secs(1, 1.5, 2.25, 3.375, 5.0625, 7.59375)},
		{"1ms ×10", Exponential(time.Millisecond, 10), secs(0.001, 0.01, 0.1, 1, 10, 100)},
		{"100ms ×3", Exponential(100*time.Millisecond, 3), secs(0.1, 0.3, 0.9, 2.7, 8.1)},
		{"×1 is constant", Exponential(time.Second, 1), secs(1, 1, 1, 1)},
		{"×0.5 is constant", Exponential(time.Second, 0.5), secs(1, 1, 1, 1)},
		{"×0 is constant", Exponential(time.Second, 0), secs(1, 1, 1, 1)},
		{"×-2 is constant", Exponential(time.Second, -2), secs(1, 1, 1, 1)},
		{"×NaN is constant", Exponential(time.Second, math.NaN()), secs(1, 1, 1, 1)},
		{"×+Inf saturates at once", Exponential(time.Second, math.Inf(1)), []time.Duration{time.Second, maxDelay, maxDelay}},
		{"×1e300 saturates at once", Exponential(time.Second, 1e300), []time.Duration{time.Second, maxDelay, maxDelay}},
		{"zero base ×+Inf", Exponential(0, math.Inf(1)), secs(0, 0, 0)},
		{"zero base ×2", Exponential(0, 2), secs(0, 0, 0)},
		{"negative base", Exponential(-time.Second, 2), secs(0, 0, 0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := delays(tt.b, forbidden{t}, len(tt.want)); !slices.Equal(got, tt.want) {
				t.Errorf("delays = %v; want %v", got, tt.want)
			}
		})
	}
	runDelayCases(t, []delayCase{
		{"attempt 0 is 1", Exponential(time.Second, 2), at(0), nil, time.Second},
		{"attempt MinInt is 1", Exponential(time.Second, 1.5), at(math.MinInt), nil, time.Second},
		{"1ns ×2 attempt 63: 2^62", Exponential(1, 2), at(63), nil, 1 << 62},
		{"1ns ×2 attempt 64 saturates", Exponential(1, 2), at(64), nil, maxDelay},
		{"3ns ×2 attempt 62: 3×2^61", Exponential(3, 2), at(62), nil, 3 << 61},
		{"3ns ×2 attempt 63 saturates", Exponential(3, 2), at(63), nil, maxDelay},
		{"1ns ×4 attempt 32: 2^62", Exponential(1, 4), at(32), nil, 1 << 62},
		{"1ns ×4 attempt 33 saturates", Exponential(1, 4), at(33), nil, maxDelay},
		{"1s ×2 attempt MaxInt", Exponential(time.Second, 2), at(math.MaxInt), nil, maxDelay},
		{"1s ×1.5 attempt MaxInt", Exponential(time.Second, 1.5), at(math.MaxInt), nil, maxDelay},
		{"1s ×1 attempt MaxInt", Exponential(time.Second, 1), at(math.MaxInt), nil, time.Second},
		{"1s ×1.5 attempt 10^6", Exponential(time.Second, 1.5), at(1_000_000), nil, maxDelay},
		{"max ×2 attempt 1", Exponential(maxDelay, 2), at(1), nil, maxDelay},
		{"max ×1.5 attempt 2", Exponential(maxDelay, 1.5), at(2), nil, maxDelay},
	})
	// 3^39 needs 62 bits: the float product is within a rounding of it.
	got := Exponential(1, 3).Delay(at(40), nil)
	const want = 4052555153018976267
	if diff := math.Abs(float64(got) - want); diff > want*1e-15 {
		t.Errorf("1ns ×3 attempt 40 = %d; want %d ± 1e-15", got, int64(want))
	}
	if got := Exponential(1, 3).Delay(at(41), nil); got != maxDelay {
		t.Errorf("1ns ×3 attempt 41 = %d; want saturation at %d", got, maxDelay)
	}
}

func TestFibonacci(t *testing.T) {
	t.Parallel()
	if got, want := delays(Fibonacci(time.Second), forbidden{t}, 10), secs(1, 1, 2, 3, 5, 8, 13, 21, 34, 55); !slices.Equal(got, want) {
		t.Errorf("delays = %v; want %v", got, want)
	}
	runDelayCases(t, []delayCase{
		{"attempt 0 is 1", Fibonacci(time.Second), at(0), nil, time.Second},
		{"attempt -1 is 1", Fibonacci(time.Second), at(-1), nil, time.Second},
		{"1s × fib(45)", Fibonacci(time.Second), at(45), nil, 1134903170 * time.Second},
		{"1s × fib(50) saturates", Fibonacci(time.Second), at(50), nil, maxDelay},
		{"1ns × fib(92), the largest int64 Fibonacci", Fibonacci(1), at(92), nil, 7540113804746346429},
		{"1ns × fib(93) saturates", Fibonacci(1), at(93), nil, maxDelay},
		{"2ns × fib(92) saturates", Fibonacci(2), at(92), nil, maxDelay},
		{"1ns attempt MaxInt", Fibonacci(1), at(math.MaxInt), nil, maxDelay},
		{"zero base attempt MaxInt", Fibonacci(0), at(math.MaxInt), nil, 0},
		{"zero base attempt 50", Fibonacci(0), at(50), nil, 0},
		{"negative base", Fibonacci(-time.Hour), at(93), nil, 0},
	})
}

func TestDecorrelated(t *testing.T) {
	t.Parallel()
	b := Decorrelated(time.Second, 10*time.Second)
	prev := func(p time.Duration) Step { return Step{Attempt: 4, Previous: p} }
	runDelayCases(t, []delayCase{
		{"first retry, top: 3×base", b, prev(0), high{}, 3 * time.Second},
		{"first retry, bottom: base", b, prev(0), low{}, time.Second},
		{"negative previous is the first retry", b, prev(-time.Hour), high{}, 3 * time.Second},
		{"previous 3s, top: 9s", b, prev(3 * time.Second), high{}, 9 * time.Second},
		{"previous 9s, top: capped at 10s", b, prev(9 * time.Second), high{}, 10 * time.Second},
		{"previous 9s, bottom: base", b, prev(9 * time.Second), low{}, time.Second},
		{"nil rand takes the top", b, prev(2 * time.Second), nil, 6 * time.Second},
		{"previous below base/3 stays at base", b, prev(100 * time.Millisecond), forbidden{t}, time.Second},
		{"previous saturates", b, prev(maxDelay), high{}, 10 * time.Second},
		{"uncapped previous saturates", Decorrelated(time.Second, maxDelay), prev(maxDelay), high{}, maxDelay},
		{"cap below base", Decorrelated(5*time.Second, 2*time.Second), prev(0), high{}, 2 * time.Second},
		{"negative cap is 0", Decorrelated(time.Second, -time.Second), prev(0), high{}, 0},
		{"zero base, first retry", Decorrelated(0, time.Minute), prev(0), forbidden{t}, 0},
		{"zero base grows from previous", Decorrelated(0, time.Minute), prev(time.Second), high{}, 3 * time.Second},
		{"negative base is 0", Decorrelated(-time.Second, time.Minute), prev(0), forbidden{t}, 0},
		{"attempt does not matter", b, Step{Attempt: math.MaxInt, Previous: 2 * time.Second, Budgeted: true, Remaining: 0}, high{}, 6 * time.Second},
	})
	// The draw is uniform over [base, 3×previous], both ends included.
	r := &scripted{vals: []int64{1234}}
	if got := b.Delay(prev(2*time.Second), r); got != time.Second+1234 {
		t.Errorf("Delay = %d; want base + the draw, %d", got, time.Second+1234)
	}
	if want := int64(6*time.Second-time.Second) + 1; len(r.ns) != 1 || r.ns[0] != want {
		t.Errorf("Int64N called with %v; want [%d]", r.ns, want)
	}
}

func TestWaiter(t *testing.T) {
	t.Parallel()
	b := Waiter(2*time.Second, 120*time.Second)
	for _, tt := range []struct {
		name string
		b    Backoff
		r    Rand
		want []time.Duration
	}{
		// ceiling = log2(60)+1 ≈ 6.9: attempt 7 jumps to maxDelay.
		{"2s..120s top", b, high{}, secs(2, 4, 8, 16, 32, 64, 120, 120, 120)},
		{"2s..120s nil rand is the top", b, nil, secs(2, 4, 8, 16, 32, 64, 120, 120, 120)},
		{"2s..120s bottom", b, low{}, secs(2, 2, 2, 2, 2, 2, 2, 2, 2)},
		// ceiling = log2(64)+1 = 7 (up to rounding): the same either side.
		{"2s..128s top", Waiter(2*time.Second, 128*time.Second), high{}, secs(2, 4, 8, 16, 32, 64, 128, 128)},
		{"5s..5s", Waiter(5*time.Second, 5*time.Second), high{}, secs(5, 5, 5)},
		{"max below min is min", Waiter(10*time.Second, time.Second), high{}, secs(10, 10, 10)},
		{"negative max is min", Waiter(10*time.Second, -time.Second), high{}, secs(10, 10, 10)},
		{"zero min", Waiter(0, time.Minute), high{}, secs(0, 0, 0)},
		{"negative min", Waiter(-time.Second, time.Minute), high{}, secs(0, 0, 0)},
		{"first delay is min, no draw", b, forbidden{t}, secs(2)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := delays(tt.b, tt.r, len(tt.want)); !slices.Equal(got, tt.want) {
				t.Errorf("delays = %v; want %v", got, tt.want)
			}
		})
	}

	rem := func(a int, r time.Duration) Step { return Step{Attempt: a, Budgeted: true, Remaining: r} }
	runDelayCases(t, []delayCase{
		{"attempt 0 is 1", b, at(0), high{}, 2 * time.Second},
		{"attempt MaxInt", b, at(math.MaxInt), high{}, 120 * time.Second},
		{"1ns..max attempt 64", Waiter(1, maxDelay), at(64), high{}, maxDelay},
		{"1ns..max attempt 63", Waiter(1, maxDelay), at(63), high{}, 1 << 62},
		{"1ns..max attempt MaxInt", Waiter(1, maxDelay), at(math.MaxInt), high{}, maxDelay},
		// The last-attempt rule: remaining - delay <= minDelay → remaining -
		// minDelay, so that the last attempt has minDelay to run; with no
		// more than minDelay left, the rest of the budget (the run ends).
		{"plenty of budget", b, rem(1, 20*time.Second), high{}, 2 * time.Second},
		{"remaining - delay < min: leave min", b, rem(2, 5*time.Second), high{}, 3 * time.Second},
		{"remaining - delay == min: leave min", b, rem(2, 6*time.Second), high{}, 4 * time.Second},
		{"remaining - delay just over min", b, rem(2, 6*time.Second+1), high{}, 4 * time.Second},
		{"remaining below min: all of it, the end", b, rem(3, time.Second), high{}, time.Second},
		{"remaining exactly min: all of it, the end", b, rem(2, 2*time.Second), high{}, 2 * time.Second},
		{"remaining just over min: a last attempt at once", b, rem(2, 2*time.Second+1), high{}, 1},
		{"the rule applies after a bottom draw", b, rem(3, 4*time.Second), low{}, 2 * time.Second},
		{"a top draw triggers the rule", b, rem(3, 9*time.Second), high{}, 7 * time.Second},
		{"a bottom draw does not", b, rem(3, 9*time.Second), low{}, 2 * time.Second},
		{"remaining 0", b, rem(5, 0), high{}, 0},
		{"no budget", b, at(2), high{}, 4 * time.Second},
		{"no budget, Remaining ignored", b, Step{Attempt: 2, Remaining: time.Second}, high{}, 4 * time.Second},
		{"negative remaining is 0", b, rem(2, -time.Hour), high{}, 0},
		{"huge budget", b, rem(2, maxDelay), high{}, 4 * time.Second},
		{"zero min, remaining 0", Waiter(0, time.Minute), rem(4, 0), high{}, 0},
		{"zero min, some budget", Waiter(0, time.Minute), rem(4, time.Second), high{}, 0},
	})

	// The draw is uniform over [minDelay, min(maxDelay, minDelay×2^(attempt-1))].
	for _, tt := range []struct {
		attempt int
		top     time.Duration
	}{{2, 4 * time.Second}, {3, 8 * time.Second}, {6, 64 * time.Second}, {7, 120 * time.Second}, {1 << 40, 120 * time.Second}} {
		r := &scripted{vals: []int64{777}}
		if got := b.Delay(at(tt.attempt), r); got != 2*time.Second+777 {
			t.Errorf("attempt %d: Delay = %d; want minDelay + the draw", tt.attempt, got)
		}
		if want := int64(tt.top-2*time.Second) + 1; len(r.ns) != 1 || r.ns[0] != want {
			t.Errorf("attempt %d: Int64N called with %v; want [%d] (top %v)", tt.attempt, r.ns, want, tt.top)
		}
	}
}
