package backoff

import (
	"testing"
	"time"
)

// TestStrategyTable checks that every strategy of the table builds a
// backoff whose first delay, without randomness (a nil Rand takes the top
// of every range), is the one its help line describes, and that Lookup
// finds each by its name and nothing else.
func TestStrategyTable(t *testing.T) {
	p := Params{Base: time.Second, Max: 20 * time.Second, Multiplier: 2}
	want := map[string][]time.Duration{ // delays before attempts 2, 3, 4, 5
		"exponential":  {1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second},
		"constant":     {1 * time.Second, 1 * time.Second, 1 * time.Second, 1 * time.Second},
		"linear":       {1 * time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second},
		"fibonacci":    {1 * time.Second, 1 * time.Second, 2 * time.Second, 3 * time.Second},
		"decorrelated": {3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}, // min(cap, 3×previous), previous 0 counts as base
		"waiter":       {1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second},
	}
	if len(Names()) != len(want) || Names()[0] != "exponential" {
		t.Fatalf("Names() = %v, want the %d strategies, exponential (the default) first", Names(), len(want))
	}
	for _, s := range Strategies() {
		got, ok := Lookup(s.Name)
		if !ok || got.Name != s.Name || s.Help == "" {
			t.Errorf("Lookup(%q) = %+v, %v; want it, with a help line", s.Name, got, ok)
		}
		b := s.New(p, s.DefaultJitter)
		for i, w := range want[s.Name] {
			if d := b.Delay(Step{Attempt: i + 1}, nil); d != w {
				t.Errorf("%s: delay after attempt %d = %v, want %v", s.Name, i+1, d, w)
			}
		}
	}
	if _, ok := Lookup("quadratic"); ok {
		t.Errorf("Lookup found a strategy that is not in the table")
	}
}
