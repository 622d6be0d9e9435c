// Package backoff computes the delay before a retry. Every Backoff is
// stateless: the delay depends only on the Step it is given and on the
// random source, so a schedule can be recomputed, tested exactly and resumed
// from durable state.
package backoff

import "time"

// Step describes the retry being planned.
type Step struct {
	// Attempt is the 1-based number of the attempt that just failed: the
	// delay computed is the one before attempt Attempt+1. Values below 1 are
	// treated as 1.
	Attempt int
	// Previous is the delay slept before Attempt (0 for the first attempt).
	// Only decorrelated jitter uses it.
	Previous time.Duration
	// Remaining is the time left in the run's budget, or a negative value
	// when the run has no budget. Only the waiter backoff uses it.
	Remaining time.Duration
}

// Rand is the source of randomness for jitter. *math/rand/v2.Rand satisfies
// it. Int64N returns a value in [0, n) and is never called with n <= 0.
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
