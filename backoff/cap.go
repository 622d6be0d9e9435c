package backoff

import "time"

// WithCap returns a Backoff whose delay is b's, but never more than max.
// A negative max counts as 0, so every delay is 0; to have no cap, do not
// wrap. A negative delay from b becomes 0. MaxDelay reports max.
//
// Apply the cap before jitter, WithJitter(WithCap(b, max), kind), so that
// delays past the cap are still spread over [0, max] instead of all landing
// on max.
func WithCap(b Backoff, max time.Duration) Backoff {
	max = nonNegative(max)
	return withMax{Func(func(s Step, r Rand) time.Duration {
		return min(nonNegative(b.Delay(s, r)), max)
	}), max}
}

// Capped is a Backoff that knows its cap: no delay it returns is longer
// than MaxDelay. A strategy of any package implements it to let a durable
// sequence record its max backoff, and WithJitter keep it.
type Capped interface {
	Backoff
	MaxDelay() time.Duration
}

// withMax is how this package's capped backoffs say their cap.
type withMax struct {
	Func
	max time.Duration
}

// MaxDelay returns the cap.
func (c withMax) MaxDelay() time.Duration { return c.max }

// MaxDelay returns the cap of b — the max backoff of a durable sequence —
// when b has one (is Capped): WithCap's max, Waiter's and Decorrelated's
// maxDelay, and the cap of the Backoff WithJitter spreads. ok is false for
// a Backoff without a cap (or that does not say).
func MaxDelay(b Backoff) (max time.Duration, ok bool) {
	if c, is := b.(Capped); is {
		return c.MaxDelay(), true
	}
	return 0, false
}
