package backoff

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"
)

// scripted is a Rand that returns its values in turn (the last one again
// when they run out) and records every n it was asked for.
type scripted struct {
	vals []int64
	ns   []int64
}

func (r *scripted) Int64N(n int64) int64 {
	r.ns = append(r.ns, n)
	v := r.vals[min(len(r.ns), len(r.vals))-1]
	return v
}

// high always draws the top of the range, low the bottom.
type high struct{}

func (high) Int64N(n int64) int64 { return n - 1 }

type low struct{}

func (low) Int64N(int64) int64 { return 0 }

// forbidden fails the test if any randomness is drawn.
type forbidden struct{ t *testing.T }

func (f forbidden) Int64N(n int64) int64 {
	f.t.Helper()
	f.t.Fatalf("Int64N(%d) called; want no randomness", n)
	return 0
}

// delays returns b's delays after attempts 1..n, with no budget.
func delays(b Backoff, r Rand, n int) []time.Duration {
	var out []time.Duration
	for a := 1; a <= n; a++ {
		out = append(out, b.Delay(Step{Attempt: a}, r))
	}
	return out
}

func secs(ss ...float64) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = time.Duration(s * float64(time.Second))
	}
	return out
}

func TestFunc(t *testing.T) {
	t.Parallel()
	var got Step
	b := Func(func(s Step, r Rand) time.Duration { got = s; return 7 * time.Second })
	s := Step{Attempt: 3, Previous: time.Second}
	if d := b.Delay(s, nil); d != 7*time.Second || got != s {
		t.Fatalf("Delay = %v with step %+v; want 7s with %+v", d, got, s)
	}
}

func TestBetween(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		r      Rand
		lo, hi time.Duration
		want   time.Duration
		wantN  int64 // the n Int64N must be called with; 0: not called
	}{
		{"inclusive span", &scripted{vals: []int64{4}}, 10, 14, 14, 5},
		{"bottom", &scripted{vals: []int64{0}}, 10, 14, 10, 5},
		{"empty range", &scripted{vals: []int64{0}}, 10, 10, 10, 0},
		{"inverted range", &scripted{vals: []int64{0}}, 10, 3, 10, 0},
		{"nil rand takes the top", nil, 10, 14, 14, 0},
		{"too large a draw is clamped", &scripted{vals: []int64{99}}, 10, 14, 14, 5},
		{"negative draw is clamped", &scripted{vals: []int64{-3}}, 10, 14, 10, 5},
		{"widest range", &scripted{vals: []int64{math.MaxInt64 - 1}}, 0, maxDelay, maxDelay - 1, math.MaxInt64},
		{"near widest range", &scripted{vals: []int64{math.MaxInt64 - 1}}, 1, maxDelay, maxDelay, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := between(tt.r, tt.lo, tt.hi); got != tt.want {
				t.Errorf("between(%d, %d) = %d; want %d", tt.lo, tt.hi, got, tt.want)
			}
			s, _ := tt.r.(*scripted)
			switch {
			case tt.wantN == 0 && s != nil && len(s.ns) > 0:
				t.Errorf("Int64N called with %v; want no call", s.ns)
			case tt.wantN != 0 && (len(s.ns) != 1 || s.ns[0] != tt.wantN):
				t.Errorf("Int64N called with %v; want [%d]", s.ns, tt.wantN)
			}
		})
	}
}

// sweepCase is a strategy for the sweep; full ones are swept over every
// attempt up to 10^6, the others up to 10^3 (and all over the extremes).
type sweepCase struct {
	name string
	b    Backoff
	full bool
}

// strategies lists every strategy, decorated or not, with the edge-case
// parameters the sweep must survive.
func strategies() []sweepCase {
	cs := []sweepCase{
		{"constant 1s", Constant(time.Second), true},
		{"constant max", Constant(maxDelay), false},
		{"constant negative", Constant(-time.Second), false},
		{"linear 1ns", Linear(1), true},
		{"linear max", Linear(maxDelay), false},
		{"linear negative", Linear(-time.Second), false},
		{"fibonacci 1ns", Fibonacci(1), true},
		{"fibonacci negative", Fibonacci(-1), false},
		{"decorrelated", Decorrelated(time.Second, time.Minute), true},
		{"decorrelated max", Decorrelated(maxDelay, maxDelay), false},
		{"decorrelated zero", Decorrelated(0, 0), false},
		{"waiter", Waiter(2*time.Second, 120*time.Second), true},
		{"waiter 1ns max", Waiter(1, maxDelay), true},
		{"waiter zero", Waiter(0, 0), false},
		{"waiter inverted", Waiter(time.Minute, -time.Second), false},
	}
	for _, mul := range []float64{-1, 0, 0.5, 1, 1.5, 2, 10, 1e300, math.Inf(1), math.NaN()} {
		for _, base := range []time.Duration{-time.Second, 0, 1, time.Second, maxDelay} {
			name := "exponential " + base.String() + " ×" + strconv.FormatFloat(mul, 'g', -1, 64)
			cs = append(cs, sweepCase{name, Exponential(base, mul), base == time.Second})
		}
	}
	exp := Exponential(time.Second, 2)
	return append(cs,
		sweepCase{"exp cap", WithCap(exp, 20*time.Second), false},
		sweepCase{"exp cap full", WithJitter(WithCap(exp, 20*time.Second), Full), true},
		sweepCase{"exp cap equal", WithJitter(WithCap(exp, 20*time.Second), Equal), true},
		sweepCase{"exp full uncapped", WithJitter(exp, Full), true},
		sweepCase{"exp equal uncapped", WithJitter(exp, Equal), false},
	)
}

// TestNeverNegativeNeverWraps sweeps attempts 1…10^6 (10^4 with -short),
// the extremes and below-1 attempts for every strategy, with real, nil and
// extreme randomness and every kind of budget: no delay is ever negative
// and nothing panics.
func TestNeverNegativeNeverWraps(t *testing.T) {
	t.Parallel()
	n := 1_000_000
	if testing.Short() {
		n = 10_000
	}
	extremes := []int{math.MinInt, -1, 0, math.MaxInt - 1, math.MaxInt}
	for _, c := range strategies() {
		t.Run(c.name, func(t *testing.T) {
			b := c.b
			for _, r := range []Rand{rand.New(rand.NewPCG(1, 2)), nil, high{}, low{}} {
				var prev time.Duration
				check := func(a int) {
					s := Step{Attempt: a, Previous: prev}
					d := b.Delay(s, r)
					if d < 0 {
						t.Fatalf("Delay(%+v) = %v < 0", s, d)
					}
					prev = d
				}
				sweep := min(n, 1000)
				if _, ok := r.(*rand.Rand); ok && c.full {
					sweep = n // the full sweep once, with real randomness
				}
				for a := 1; a <= sweep; a++ {
					check(a)
				}
				for _, a := range extremes {
					check(a)
				}
				// Budgets: every remaining time, including none and zero.
				for _, rem := range []time.Duration{-1, 0, 1, time.Second, maxDelay} {
					for _, a := range []int{1, 2, 64, math.MaxInt} {
						s := Step{Attempt: a, Previous: maxDelay, Budgeted: rem >= 0, Remaining: rem}
						if d := b.Delay(s, r); d < 0 {
							t.Fatalf("Delay(%+v) = %v < 0", s, d)
						}
					}
				}
			}
		})
	}
}

// TestMonotone checks the unjittered strategies never shrink as the attempt
// grows (the symptom of a wrap-around) up to math.MaxInt, where each reaches
// its expected limit.
func TestMonotone(t *testing.T) {
	t.Parallel()
	n := 1_000_000
	if testing.Short() {
		n = 10_000
	}
	tests := []struct {
		name  string
		b     Backoff
		limit time.Duration // the delay at attempt math.MaxInt
	}{
		{"linear 1ns", Linear(1), maxDelay},
		{"linear 1s", Linear(time.Second), maxDelay},
		{"fibonacci 1ns", Fibonacci(1), maxDelay},
		{"exponential 1ns ×1", Exponential(1, 1), 1},
		{"exponential 1ns ×1.5", Exponential(1, 1.5), maxDelay},
		{"exponential 1ns ×2", Exponential(1, 2), maxDelay},
		{"exponential 1s ×10", Exponential(time.Second, 10), maxDelay},
		{"exponential 1s ×1e300", Exponential(time.Second, 1e300), maxDelay},
		{"exponential 0 ×2", Exponential(0, 2), 0},
		{"exp cap 20s", WithCap(Exponential(time.Second, 2), 20*time.Second), 20 * time.Second},
		{"waiter", Waiter(2*time.Second, 120*time.Second), 120 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var last time.Duration
			for a := 1; a <= n; a++ {
				d := tt.b.Delay(Step{Attempt: a}, nil)
				if d < last {
					t.Fatalf("attempt %d: %v < %v at attempt %d", a, d, last, a-1)
				}
				last = d
			}
			if d := tt.b.Delay(Step{Attempt: math.MaxInt}, nil); d != tt.limit || d < last {
				t.Fatalf("attempt MaxInt: %v; want %v (and ≥ %v)", d, tt.limit, last)
			}
		})
	}
}

// TestSleepSchedule sleeps each computed delay on synctest's fake clock and
// checks when every attempt starts.
func TestSleepSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		b        Backoff
		r        Rand
		attempts int
		budget   time.Duration // 0: none
		want     []time.Duration
	}{
		{
			name:     "exponential 1s capped at 5s",
			b:        WithCap(Exponential(time.Second, 2), 5*time.Second),
			attempts: 5,
			want:     secs(0, 1, 3, 7, 12),
		},
		{
			name:     "full jitter at its top is the capped schedule",
			b:        WithJitter(WithCap(Exponential(time.Second, 2), 5*time.Second), Full),
			r:        high{},
			attempts: 6,
			want:     secs(0, 1, 3, 7, 12, 17),
		},
		{
			name:     "equal jitter at its bottom halves each delay",
			b:        WithJitter(WithCap(Exponential(time.Second, 2), 5*time.Second), Equal),
			r:        low{},
			attempts: 6,
			want:     secs(0, 0.5, 1.5, 3.5, 6, 8.5),
		},
		{
			name:     "fibonacci",
			b:        Fibonacci(time.Second),
			attempts: 7,
			want:     secs(0, 1, 2, 4, 7, 12, 20),
		},
		{
			name:     "linear",
			b:        Linear(time.Second),
			attempts: 5,
			want:     secs(0, 1, 3, 6, 10),
		},
		{
			name:     "schedule 5s 30s",
			b:        mustSchedule(t, "3 5s 30s").Backoff,
			attempts: 6,
			want:     secs(0, 5, 15, 35, 65, 95),
		},
		{
			name:     "decorrelated at its top",
			b:        Decorrelated(time.Second, 20*time.Second),
			r:        high{},
			attempts: 5,
			want:     secs(0, 3, 12, 32, 52),
		},
		{
			name:     "waiter 2s..120s in 20s: the last attempt has minDelay before the deadline",
			b:        Waiter(2*time.Second, 120*time.Second),
			r:        high{},
			attempts: 10,
			budget:   20 * time.Second,
			want:     secs(0, 2, 6, 14, 18),
		},
		{
			name:     "waiter at its bottom in 9s",
			b:        Waiter(2*time.Second, 120*time.Second),
			r:        low{},
			attempts: 10,
			budget:   9 * time.Second,
			want:     secs(0, 2, 4, 6, 7),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				var got []time.Duration
				var prev time.Duration
				for a := 1; a <= tt.attempts; a++ {
					elapsed := time.Since(start)
					got = append(got, elapsed)
					s := Step{Attempt: a, Previous: prev}
					if tt.budget > 0 {
						if elapsed >= tt.budget {
							break
						}
						s.Budgeted, s.Remaining = true, tt.budget-elapsed
					}
					if a == tt.attempts {
						break
					}
					prev = tt.b.Delay(s, tt.r)
					if tt.budget > 0 && elapsed+prev >= tt.budget {
						break // no attempt starts at or past the deadline
					}
					time.Sleep(prev)
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("attempts start at %v; want %v", got, tt.want)
				}
			})
		})
	}
}

func mustSchedule(t *testing.T, s string) Schedule {
	t.Helper()
	sc, err := ParseSchedule(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestPCGSequence pins the delays of the CLI's default backoff (exponential
// 1s ×2, cap 20s, full jitter) for a seeded PCG, and checks each against its
// bounds.
func TestPCGSequence(t *testing.T) {
	t.Parallel()
	b := WithJitter(WithCap(Exponential(time.Second, 2), 20*time.Second), Full)
	r := rand.New(rand.NewPCG(1, 2))
	got := delays(b, r, 8)
	for i, d := range got {
		top := min(time.Second<<i, 20*time.Second)
		if d < 0 || d > top {
			t.Errorf("attempt %d: %v not in [0, %v]", i+1, d, top)
		}
	}
	want := []time.Duration{
		769373270, 1232872448, 3137712007, 6372772628,
		3748420331, 824105141, 9998235108, 8987677556,
	}
	if !slices.Equal(got, want) {
		t.Errorf("delays = %v; want %v", got, want)
	}
}

func BenchmarkDelay(b *testing.B) {
	benches := []struct {
		name string
		b    Backoff
		a    int
	}{
		{"exponential+cap+full", WithJitter(WithCap(Exponential(time.Second, 2), 20*time.Second), Full), 7},
		{"exponential×1.5+cap+equal", WithJitter(WithCap(Exponential(time.Second, 1.5), 20*time.Second), Equal), 7},
		{"fibonacci/attempt=90", Fibonacci(1), 90},
		{"decorrelated", Decorrelated(time.Second, 20*time.Second), 7},
		{"waiter", Waiter(2*time.Second, 120*time.Second), 7},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			s := Step{Attempt: bb.a, Previous: 4 * time.Second, Budgeted: true, Remaining: time.Hour}
			var last time.Duration
			for b.Loop() {
				last = bb.b.Delay(s, r)
			}
			if last < 0 {
				b.Fatal("negative")
			}
		})
	}
}

// FuzzDelay builds every strategy from arbitrary parameters and checks the
// contract: never negative, never above a cap, never a panic.
func FuzzDelay(f *testing.F) {
	f.Add(int64(time.Second), int64(20*time.Second), 2.0, 3, int64(0), int64(-1), int64(5))
	f.Add(int64(1), int64(math.MaxInt64), 1e300, math.MaxInt, int64(math.MaxInt64), int64(0), int64(-1))
	f.Add(int64(-5), int64(-5), math.NaN(), math.MinInt, int64(-7), int64(math.MaxInt64), int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, base, maxD int64, mul float64, attempt int, prev, rem, draw int64) {
		b, m := time.Duration(base), time.Duration(maxD)
		s := Step{Attempt: attempt, Previous: time.Duration(prev), Budgeted: rem >= 0, Remaining: time.Duration(rem)}
		r := &scripted{vals: []int64{draw}}
		capped := map[string]Backoff{
			"cap exponential":      WithCap(Exponential(b, mul), m),
			"cap exponential full": WithJitter(WithCap(Exponential(b, mul), m), Full),
			"cap linear equal":     WithJitter(WithCap(Linear(b), m), Equal),
			"decorrelated":         Decorrelated(b, m),
		}
		for name, bo := range capped {
			if d := bo.Delay(s, r); d < 0 || d > max(m, 0) {
				t.Fatalf("%s: Delay(%+v) = %v; want in [0, %v]", name, s, d, max(m, 0))
			}
		}
		free := map[string]Backoff{
			"constant":    Constant(b),
			"linear":      Linear(b),
			"exponential": Exponential(b, mul),
			"fibonacci":   Fibonacci(b),
			"waiter":      Waiter(b, m),
			"full":        WithJitter(Fibonacci(b), Full),
		}
		for name, bo := range free {
			if d := bo.Delay(s, r); d < 0 {
				t.Fatalf("%s: Delay(%+v) = %v < 0", name, s, d)
			}
		}
		if d := Waiter(b, m).Delay(s, r); s.Budgeted && d > s.Remaining {
			t.Fatalf("waiter: Delay(%+v) = %v, past the budget", s, d)
		}
	})
}
