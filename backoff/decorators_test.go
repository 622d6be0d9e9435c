package backoff

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// fixed returns a Backoff whose delay is always d, even a negative one (a
// misbehaving Func).
func fixed(d time.Duration) Backoff { return Func(func(Step, Rand) time.Duration { return d }) }

func TestWithCap(t *testing.T) {
	t.Parallel()
	runDelayCases(t, []delayCase{
		{"below", WithCap(fixed(3*time.Second), 5*time.Second), at(1), nil, 3 * time.Second},
		{"at", WithCap(fixed(5*time.Second), 5*time.Second), at(1), nil, 5 * time.Second},
		{"above", WithCap(fixed(8*time.Second), 5*time.Second), at(1), nil, 5 * time.Second},
		{"saturated", WithCap(fixed(maxDelay), 5*time.Second), at(1), nil, 5 * time.Second},
		{"cap 0", WithCap(fixed(8*time.Second), 0), at(1), nil, 0},
		{"negative cap is 0", WithCap(fixed(8*time.Second), -time.Second), at(1), nil, 0},
		{"negative delay is 0", WithCap(fixed(-time.Second), 5*time.Second), at(1), nil, 0},
		{"cap max", WithCap(fixed(maxDelay), maxDelay), at(1), nil, maxDelay},
		{"exponential attempt 4 → 5s", WithCap(Exponential(time.Second, 2), 5*time.Second), at(4), nil, 5 * time.Second},
		{"exponential attempt MaxInt", WithCap(Exponential(time.Second, 2), 5*time.Second), at(math.MaxInt), nil, 5 * time.Second},
	})
}

func TestWithJitter(t *testing.T) {
	t.Parallel()
	runDelayCases(t, []delayCase{
		{"full top", WithJitter(fixed(10*time.Second), Full), at(1), high{}, 10 * time.Second},
		{"full bottom", WithJitter(fixed(10*time.Second), Full), at(1), low{}, 0},
		{"full nil rand is d", WithJitter(fixed(10*time.Second), Full), at(1), nil, 10 * time.Second},
		{"full of 0 draws nothing", WithJitter(fixed(0), Full), at(1), forbidden{t}, 0},
		{"full of negative is 0", WithJitter(fixed(-time.Second), Full), at(1), forbidden{t}, 0},
		{"full of max, top", WithJitter(fixed(maxDelay), Full), at(1), high{}, maxDelay - 1},
		{"equal top", WithJitter(fixed(10*time.Second), Equal), at(1), high{}, 10 * time.Second},
		{"equal bottom", WithJitter(fixed(10*time.Second), Equal), at(1), low{}, 5 * time.Second},
		{"equal nil rand is d", WithJitter(fixed(10*time.Second), Equal), at(1), nil, 10 * time.Second},
		{"equal odd bottom rounds the fixed half up", WithJitter(fixed(5), Equal), at(1), low{}, 3},
		{"equal odd top is d", WithJitter(fixed(5), Equal), at(1), high{}, 5},
		{"equal of 1ns draws nothing", WithJitter(fixed(1), Equal), at(1), forbidden{t}, 1},
		{"equal of max, bottom", WithJitter(fixed(maxDelay), Equal), at(1), low{}, 1 << 62},
		{"equal of max, top", WithJitter(fixed(maxDelay), Equal), at(1), high{}, maxDelay},
		{"equal of negative is 0", WithJitter(fixed(-time.Second), Equal), at(1), forbidden{t}, 0},
		{"none", WithJitter(fixed(10*time.Second), None), at(1), forbidden{t}, 10 * time.Second},
		{"unknown kind is none", WithJitter(fixed(10*time.Second), Jitter(42)), at(1), forbidden{t}, 10 * time.Second},
		{"cap then jitter: top is the cap", WithJitter(WithCap(Exponential(time.Second, 2), 5*time.Second), Full), at(30), high{}, 5 * time.Second},
	})

	// The draw covers [0, d] and [d-d/2, d] exactly, both ends included.
	for _, tt := range []struct {
		kind  Jitter
		d     time.Duration
		draw  int64
		want  time.Duration
		wantN int64
	}{
		{Full, 10 * time.Second, 1234, 1234, int64(10*time.Second) + 1},
		{Equal, 10 * time.Second, 1234, 5*time.Second + 1234, int64(5*time.Second) + 1},
		{Equal, 5, 1, 4, 3},
		{Full, maxDelay, 99, 99, math.MaxInt64},
		{Equal, maxDelay, 99, 1<<62 + 99, 1 << 62},
	} {
		r := &scripted{vals: []int64{tt.draw}}
		if got := WithJitter(fixed(tt.d), tt.kind).Delay(at(1), r); got != tt.want {
			t.Errorf("%v of %d, draw %d: %d; want %d", tt.kind, tt.d, tt.draw, got, tt.want)
		}
		if len(r.ns) != 1 || r.ns[0] != tt.wantN {
			t.Errorf("%v of %d: Int64N called with %v; want [%d]", tt.kind, tt.d, r.ns, tt.wantN)
		}
	}
}

// TestJitterBoundsPCG draws many times from a seeded PCG: every value is in
// range, and for a 3ns delay every value of the range, ends included, shows
// up.
func TestJitterBoundsPCG(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind   Jitter
		d      time.Duration
		lo, hi time.Duration
	}{
		{Full, 3, 0, 3},
		{Equal, 3, 2, 3},
		{Equal, 6, 3, 6},
		{Full, 20 * time.Second, 0, 20 * time.Second},
		{Equal, 20 * time.Second, 10 * time.Second, 20 * time.Second},
	} {
		r := rand.New(rand.NewPCG(1, 2))
		b := WithJitter(fixed(tt.d), tt.kind)
		seen := map[time.Duration]bool{}
		for range 2000 {
			got := b.Delay(at(1), r)
			if got < tt.lo || got > tt.hi {
				t.Fatalf("%v of %v: %v not in [%v, %v]", tt.kind, tt.d, got, tt.lo, tt.hi)
			}
			seen[got] = true
		}
		if tt.hi-tt.lo < 10 && len(seen) != int(tt.hi-tt.lo)+1 {
			t.Errorf("%v of %v: drew %v; want every value in [%v, %v]", tt.kind, tt.d, seen, tt.lo, tt.hi)
		}
	}
}

func TestParseJitter(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want Jitter
	}{
		{"full", Full}, {"equal", Equal}, {"none", None}, {"FULL", Full}, {" Equal\n", Equal},
	} {
		got, err := ParseJitter(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseJitter(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if back, _ := ParseJitter(got.String()); back != got {
			t.Errorf("ParseJitter(%v.String()) = %v", got, back)
		}
	}
	for _, in := range []string{"", "ful", "random", "decorrelated", "full,equal"} {
		got, err := ParseJitter(in)
		if err == nil || got != None || !strings.Contains(err.Error(), "want full, equal or none") {
			t.Errorf("ParseJitter(%q) = %v, %v; want None and an error listing full, equal, none", in, got, err)
		}
	}
	if s := Jitter(7).String(); s != "Jitter(7)" {
		t.Errorf("Jitter(7).String() = %q", s)
	}
}

// tenSeconds is a Capped strategy as another package would write one.
type tenSeconds struct{}

func (tenSeconds) Delay(Step, Rand) time.Duration { return 10 * time.Second }
func (tenSeconds) MaxDelay() time.Duration        { return 10 * time.Second }

// MaxDelay reports the cap of the backoffs that have one (Capped), through
// jitter, and nothing for those that have none.
func TestMaxDelay(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    Backoff
		max  time.Duration
		ok   bool
	}{
		{"cap", WithCap(Exponential(time.Second, 2), 20*time.Second), 20 * time.Second, true},
		{"negative cap", WithCap(Constant(time.Second), -time.Second), 0, true},
		{"full jitter of a cap", WithJitter(WithCap(Linear(time.Second), 7*time.Second), Full), 7 * time.Second, true},
		{"equal jitter of a cap", WithJitter(WithCap(Linear(time.Second), 7*time.Second), Equal), 7 * time.Second, true},
		{"no jitter of a cap", WithJitter(WithCap(Linear(time.Second), 7*time.Second), None), 7 * time.Second, true},
		{"waiter", Waiter(2*time.Second, 120*time.Second), 120 * time.Second, true},
		{"waiter, max below min", Waiter(2*time.Second, time.Second), 2 * time.Second, true},
		{"decorrelated", Decorrelated(time.Second, 30*time.Second), 30 * time.Second, true},
		{"schedule", mustSchedule(t, "3 5s 10m").Backoff, 10 * time.Minute, true},
		{"exponential", Exponential(time.Second, 2), 0, false},
		{"jitter of no cap", WithJitter(Constant(time.Second), Full), 0, false},
		{"a strategy of another package", tenSeconds{}, 10 * time.Second, true},
		{"jitter of another package's cap", WithJitter(tenSeconds{}, Full), 10 * time.Second, true},
	} {
		max, ok := MaxDelay(tc.b)
		if max != tc.max || ok != tc.ok {
			t.Errorf("%s: MaxDelay = %v, %v; want %v, %v", tc.name, max, ok, tc.max, tc.ok)
		}
	}
}
