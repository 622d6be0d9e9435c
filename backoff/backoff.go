// Package backoff computes the delay before a retry. Every Backoff is
// stateless: the delay depends only on the Step it is given and on the
// random source, so a schedule can be recomputed, tested exactly and resumed
// from durable state.
//
// Strategies (one file each): Constant, Linear, Exponential, Fibonacci,
// Decorrelated (AWS "decorrelated jitter") and Waiter (the Smithy waiter
// formula). Decorators compose around any Backoff: WithCap bounds a delay and
// WithJitter randomises it. Cap before jitter, so a capped delay still
// spreads out:
//
//	b := backoff.WithJitter(backoff.WithCap(backoff.Exponential(time.Second, 2), 20*time.Second), backoff.Full)
//
// Strategies is the table of the strategies a command line names (--backoff):
// name, one line of help, default jitter and constructor; the flag's words,
// its completion and the building of a run's backoff all read it, so a new
// strategy is its own file and one row there.
//
// ParseSchedule reads the compact "[COUNT] MIN [MAX]" form and ParseDuration
// reads flag values (Go durations or bare seconds).
//
// Every delay is in [0, math.MaxInt64] nanoseconds: growth saturates at
// math.MaxInt64 instead of wrapping around, negative bases count as 0 and
// attempts below 1 count as 1.
package backoff

import "time"

// Step describes the retry being planned.
type Step struct {
	// Attempt is the 1-based number of the attempt that just failed: the
	// delay computed is the one before attempt Attempt+1. Values below 1 are
	// treated as 1.
	Attempt int
	// Previous is the delay slept before Attempt (0 for the first attempt).
	// Only decorrelated jitter uses it; negative values are treated as 0.
	Previous time.Duration
	// Budgeted reports that the run has a time budget, and Remaining is
	// the time left in it (negative values are treated as 0). Without a
	// budget (the zero Step), Remaining is ignored. Only the waiter backoff
	// uses them.
	Budgeted  bool
	Remaining time.Duration
}

// Rand is the source of randomness for jitter. *math/rand/v2.Rand satisfies
// it. Int64N returns a value in [0, n) and is never called with n <= 0; a
// value outside that range is clamped into it.
//
// A nil Rand is allowed: every random choice then takes the upper end of its
// range, so jittered strategies behave as if there were no jitter (Full and
// Equal jitter return the delay unchanged, Decorrelated returns
// min(cap, 3×previous), Waiter returns its unjittered ceiling).
type Rand interface {
	Int64N(n int64) int64
}

// Backoff computes the delay before the next attempt. Delay never returns a
// negative duration, never panics and never wraps around, whatever the step.
type Backoff interface {
	Delay(s Step, r Rand) time.Duration
}

// Func adapts a function to a Backoff.
type Func func(s Step, r Rand) time.Duration

// Delay calls f(s, r).
func (f Func) Delay(s Step, r Rand) time.Duration { return f(s, r) }
