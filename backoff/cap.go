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

// withMax is a Backoff that knows its cap: every Backoff of this package
// that has one is a withMax.
type withMax struct {
	Func
	max time.Duration
}

// MaxDelay returns the cap of b — the max backoff of a durable sequence —
// when b has one: WithCap's max, Waiter's and Decorrelated's maxDelay, and
// the cap of the Backoff WithJitter spreads. ok is false for a Backoff
// without a cap (or that does not say). It asserts the concrete type: an
// assertion to an interface type builds its itab at run time, reading the
// asserted type's method names, which at start are cold pages (perf
// record over 400 starts of retry run: 0.5% of retry's CPU).
func MaxDelay(b Backoff) (max time.Duration, ok bool) {
	if c, is := b.(withMax); is {
		return c.max, true
	}
	return 0, false
}
