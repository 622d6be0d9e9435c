package backoff

import (
	"math"
	"time"
)

// Waiter returns the backoff of Smithy waiters (smithy.waiters#waitable,
// "Waiter retries"), with Step.Attempt as the Smithy attempt number:
//
//	attemptCeiling = ln(maxDelay/minDelay)/ln(2) + 1
//	if attempt > attemptCeiling: delay = maxDelay
//	else:                        delay = minDelay × 2^(attempt-1)
//	delay = random_between(minDelay, min(maxDelay, delay))
//	if remaining - delay <= minDelay: delay = remaining - minDelay
//
// random_between is uniform over whole nanoseconds with both ends included
// (Smithy SDKs draw whole seconds or floats; the bounds are the same); with a
// nil Rand it returns the upper end. The first delay is therefore exactly
// minDelay.
//
// The last line is the waiters' last-attempt rule as the AWS SDKs apply it
// (smithy-go's ComputeDelay): when sleeping delay would leave no more than
// minDelay of the budget, sleep only until minDelay is left, so that the
// last attempt has minDelay to run and ends by the deadline. (The Smithy
// specification's text sleeps all of remaining instead, which starts the
// last attempt at the deadline, to run past it.) With no more than minDelay
// left, no attempt fits: the delay is then all of remaining, which ends the
// run at the deadline. remaining is Step.Remaining and the rule applies
// only to a run with a budget (Step.Budgeted); a remaining of 0 (or less)
// gives 0.
//
// Negative durations count as 0. A maxDelay below minDelay counts as
// minDelay, so every delay is minDelay. A minDelay of 0 makes every delay 0
// (the doubling never leaves 0), apart from the last-attempt rule. MaxDelay
// reports maxDelay (which only the last-attempt rule passes).
func Waiter(minDelay, maxDelay time.Duration) Backoff {
	minDelay = nonNegative(minDelay)
	maxDelay = max(nonNegative(maxDelay), minDelay)
	ceiling := math.Inf(1)
	if minDelay > 0 {
		ceiling = math.Log(float64(maxDelay)/float64(minDelay))/math.Ln2 + 1
	}
	return withMax{Func(func(s Step, r Rand) time.Duration {
		a := attemptOf(s)
		d := maxDelay
		if float64(a) <= ceiling {
			d = min(maxDelay, shlSat(minDelay, a-1))
		}
		d = between(r, minDelay, d)
		if rem := max(s.Remaining, 0); s.Budgeted && rem-d <= minDelay {
			d = rem - minDelay
			if d <= 0 {
				d = rem // no attempt fits: this delay ends the run
			}
		}
		return d
	}), maxDelay}
}
