package backoff

import (
	"math"
	"time"
)

// Exponential returns a Backoff whose delay is base×multiplier^(attempt-1):
// base after the first attempt, then base×multiplier, base×multiplier²…
//
// The product is computed in float64 and truncated to a whole nanosecond;
// it is exact while it stays below 2^53 ns (about 104 days) for power-of-two
// multipliers. It saturates at math.MaxInt64 nanoseconds instead of
// overflowing, so even math.MaxInt attempts give math.MaxInt64. An attempt
// below 1 counts as 1 and a negative base as 0. A multiplier below 1 or NaN
// is treated as 1 (a constant delay); +Inf saturates from the second attempt.
// Wrap it in WithCap to bound it, then in WithJitter to spread it.
func Exponential(base time.Duration, multiplier float64) Backoff {
	base = nonNegative(base)
	if !(multiplier >= 1) {
		multiplier = 1
	}
	if multiplier == 2 {
		// The common case, exact for every base.
		return Func(func(s Step, _ Rand) time.Duration {
			return shlSat(base, attemptOf(s)-1)
		})
	}
	return Func(func(s Step, _ Rand) time.Duration {
		a := attemptOf(s)
		if a == 1 {
			return base
		}
		return scaleSat(base, math.Pow(multiplier, float64(a-1)))
	})
}
