package backoff

import (
	"math"
	"time"
)

// maxDelay is the longest delay any Backoff returns: about 292 years.
const maxDelay = time.Duration(math.MaxInt64)

// nonNegative returns d, or 0 when d is negative.
func nonNegative(d time.Duration) time.Duration { return max(d, 0) }

// attemptOf returns the step's attempt, at least 1.
func attemptOf(s Step) int { return max(s.Attempt, 1) }

// mulSat returns d×n, saturated at maxDelay. d and n must be ≥ 0.
func mulSat(d time.Duration, n int64) time.Duration {
	if d == 0 || n == 0 {
		return 0
	}
	if n > int64(maxDelay/d) {
		return maxDelay
	}
	return d * time.Duration(n)
}

// shlSat returns d×2^n, saturated at maxDelay. d and n must be ≥ 0.
func shlSat(d time.Duration, n int) time.Duration {
	if d == 0 {
		return 0
	}
	if n >= 63 || d > maxDelay>>n {
		return maxDelay
	}
	return d << n
}

// scaleSat returns d×f truncated to a whole nanosecond, saturated at
// maxDelay. d must be ≥ 0 and f ≥ 0 (+Inf allowed); 0×Inf is 0.
func scaleSat(d time.Duration, f float64) time.Duration {
	if d == 0 {
		return 0
	}
	x := float64(d) * f
	switch {
	case math.IsNaN(x) || x <= 0:
		return 0
	case x >= float64(maxDelay): // float64(MaxInt64) rounds up to 2^63
		return maxDelay
	}
	return time.Duration(x)
}

// between returns a uniformly random duration in [lo, hi], both ends
// included; hi when r is nil; lo when hi <= lo. lo must be ≥ 0. For the one
// range too wide to count, [0, MaxInt64], the top value is never drawn.
func between(r Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	if r == nil {
		return hi
	}
	span := int64(hi - lo)
	n := span
	if n < math.MaxInt64 {
		n++
	}
	v := min(max(r.Int64N(n), 0), span)
	return lo + time.Duration(v)
}
