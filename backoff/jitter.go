package backoff

import (
	"fmt"
	"strings"
	"time"
)

// Jitter is a way to randomise a delay d so that clients that failed
// together do not retry together. The zero value is None.
type Jitter int

const (
	// None keeps d unchanged.
	None Jitter = iota
	// Full picks uniformly in [0, d], both ends included (AWS "full
	// jitter"): the best spread, but a retry may come at once.
	Full
	// Equal picks uniformly in [d - d/2, d], both ends included (AWS "equal
	// jitter"): d/2 + random in [0, d/2], where for an odd number of
	// nanoseconds the fixed half is rounded up so the top is exactly d.
	Equal
)

// String returns "none", "full" or "equal", the words ParseJitter reads, or
// "Jitter(N)" for any other value.
func (j Jitter) String() string {
	switch j {
	case None:
		return "none"
	case Full:
		return "full"
	case Equal:
		return "equal"
	}
	return fmt.Sprintf("Jitter(%d)", int(j))
}

// ParseJitter reads "full", "equal" or "none" (case and surrounding blanks
// ignored). Any other word is an error that lists the accepted ones.
func ParseJitter(s string) (Jitter, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none":
		return None, nil
	case "full":
		return Full, nil
	case "equal":
		return Equal, nil
	}
	return None, fmt.Errorf("invalid jitter %q: want full, equal or none", s)
}

// WithJitter returns a Backoff that randomises b's delay d as kind says
// (see Full, Equal, None). With None, or any unknown kind, it returns b
// itself. A negative d from b becomes 0. With a nil Rand the delay is d, as
// if there were no jitter.
//
// Cap first: WithJitter(WithCap(b, max), kind); MaxDelay of the result is
// the cap.
func WithJitter(b Backoff, kind Jitter) Backoff {
	var f Func
	switch kind {
	case Full:
		f = func(s Step, r Rand) time.Duration {
			return between(r, 0, nonNegative(b.Delay(s, r)))
		}
	case Equal:
		f = func(s Step, r Rand) time.Duration {
			d := nonNegative(b.Delay(s, r))
			return between(r, d-d/2, d)
		}
	default:
		return b
	}
	if max, ok := MaxDelay(b); ok {
		return withMax{f, max} // jitter spreads delays below the cap
	}
	return f
}
