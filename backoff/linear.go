package backoff

import "time"

// Linear returns a Backoff whose delay grows by base each attempt:
// base×attempt, so base, 2×base, 3×base… An attempt below 1 counts as 1, a
// negative base as 0, and the product saturates at math.MaxInt64
// nanoseconds instead of wrapping around.
func Linear(base time.Duration) Backoff {
	base = nonNegative(base)
	return Func(func(s Step, _ Rand) time.Duration {
		return mulSat(base, int64(attemptOf(s)))
	})
}
