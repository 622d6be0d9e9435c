package backoff

import "time"

// WithCap returns a Backoff whose delay is b's, but never more than max.
// A negative max counts as 0, so every delay is 0; to have no cap, do not
// wrap. A negative delay from b becomes 0.
//
// Apply the cap before jitter, WithJitter(WithCap(b, max), kind), so that
// delays past the cap are still spread over [0, max] instead of all landing
// on max.
func WithCap(b Backoff, max time.Duration) Backoff {
	max = nonNegative(max)
	return Func(func(s Step, r Rand) time.Duration {
		return min(nonNegative(b.Delay(s, r)), max)
	})
}
