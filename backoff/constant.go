package backoff

import "time"

// Constant returns a Backoff whose delay is always base, whatever the
// attempt. A negative base is treated as 0 (retry at once).
func Constant(base time.Duration) Backoff {
	base = nonNegative(base)
	return Func(func(Step, Rand) time.Duration { return base })
}
