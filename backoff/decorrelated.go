package backoff

import "time"

// Decorrelated returns AWS's "decorrelated jitter" backoff:
//
//	delay = min(maxDelay, random_between(base, 3×previous))
//
// where previous is Step.Previous, the delay slept before the attempt that
// just failed. A previous of 0 or less (the first retry) counts as base, so
// the first delay is in [base, 3×base]; an upper end below base is raised to
// base. The attempt number is not used. random_between is uniform with both
// ends included; with a nil Rand it returns the upper end.
//
// Negative base and maxDelay count as 0; a maxDelay below base caps every
// delay at maxDelay. 3×previous saturates at math.MaxInt64 nanoseconds.
// Decorrelated is already jittered and capped: wrapping it in WithJitter
// jitters twice. MaxDelay reports maxDelay.
func Decorrelated(base, maxDelay time.Duration) Backoff {
	base, maxDelay = nonNegative(base), nonNegative(maxDelay)
	return withMax{Func(func(s Step, r Rand) time.Duration {
		prev := s.Previous
		if prev <= 0 {
			prev = base
		}
		hi := max(mulSat(prev, 3), base)
		return min(between(r, base, hi), maxDelay)
	}), maxDelay}
}
