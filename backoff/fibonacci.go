package backoff

import "time"

// Fibonacci returns a Backoff whose delay is base×fib(attempt), with fib
// 1, 1, 2, 3, 5, 8…: base, base, 2×base, 3×base, 5×base… An attempt below 1
// counts as 1 and a negative base as 0. fib(93) no longer fits in an int64,
// so from there on (and whenever the product would overflow) the delay
// saturates at math.MaxInt64 nanoseconds; the cost of Delay is bounded by
// that, whatever the attempt.
func Fibonacci(base time.Duration) Backoff {
	base = nonNegative(base)
	return Func(func(s Step, _ Rand) time.Duration {
		f, ok := fib(attemptOf(s))
		if !ok {
			if base == 0 {
				return 0
			}
			return maxDelay
		}
		return mulSat(base, f)
	})
}

// fib returns the n-th Fibonacci number (fib(1) = fib(2) = 1) for n ≥ 1, and
// false when it does not fit in an int64 (n > 92).
func fib(n int) (int64, bool) {
	if n > 92 {
		return 0, false
	}
	a, b := int64(0), int64(1)
	for range n - 1 {
		a, b = b, a+b
	}
	return b, true
}
