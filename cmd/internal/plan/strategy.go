package plan

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/jmes"
	"github.com/retry-dev/retry/acceptor/waitermodel"
	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/cmd/internal/exit"
)

// backoff builds the backoff for ordinary retries and the one for
// throttling retries, and the waiter's final-poll grace.
func (o *Options) backoff(w *waitermodel.Model) (bo, throttle backoff.Backoff, grace time.Duration, err error) {
	kind, delay, maxDelay, jitter := o.Delay.Backoff, o.Delay.Base, o.Delay.Max, o.Delay.Jitter
	if w != nil && !o.Given("backoff") {
		if w.Smithy {
			kind = "waiter"
			if !o.Given("delay") && w.MinDelay > 0 {
				delay = w.MinDelay
			}
			if !o.Given("max-delay") && w.MaxDelay > 0 {
				maxDelay = w.MaxDelay
			}
		} else {
			kind = "constant"
			if !o.Given("delay") {
				delay = w.Delay
			}
			if !o.Given("jitter") {
				jitter = "none"
			}
		}
	}
	if !o.Given("max-delay") && maxDelay < delay {
		maxDelay = delay // a default cap never contradicts the delay the user gave
	}
	if kind == "waiter" {
		// --delay 0: the Smithy formula degenerates to no delay at all.
		grace := o.Budget.AttemptTimeout
		if grace == 0 {
			grace = delay
		}
		wb := backoff.Waiter(delay, maxDelay)
		return wb, nil, grace, nil
	}
	if jitter == "" {
		jitter = defaultJitter(kind)
	}
	j, err := backoff.ParseJitter(jitter)
	if err != nil {
		return nil, nil, 0, exit.Usagef("--jitter: %q: %v", jitter, err)
	}
	base := func(d time.Duration) backoff.Backoff {
		var b backoff.Backoff
		switch kind {
		case "constant":
			b = backoff.Constant(d)
		case "linear":
			b = backoff.Linear(d)
		case "fibonacci":
			b = backoff.Fibonacci(d)
		case "decorrelated":
			return backoff.Decorrelated(d, maxDelay)
		default:
			b = backoff.Exponential(d, o.Delay.Multiplier)
		}
		return backoff.WithJitter(backoff.WithCap(b, maxDelay), j)
	}
	if strings.EqualFold(o.Retry.Mode, "adaptive") && !o.Given("throttle-delay") {
		// The adaptive limiter already paces every send after a throttle
		// (at the rate CUBIC allows, shared by the scope): a 5s throttling
		// backoff on top of it only delays the retries the limiter would
		// let through, and leaves a throttled client of a storm last (with
		// the limiter's fleet start, bench/storm.sh's 50 clients against a
		// service admitting 10 req/s are all done in 5.5–6.2s, medians,
		// instead of 7.6s). An explicit --throttle-delay still wins.
		return base(delay), nil, 0, nil
	}
	return base(delay), base(max(delay, o.Delay.Throttle)), 0, nil
}

// chain builds the acceptor chain: flags in command-line order, then the
// waiter's acceptors, then the fallback of run or wait.
func (o *Options) chain(w *waitermodel.Model) (*acceptor.Chain, error) {
	c := &acceptor.Chain{Acceptors: o.Accept.List.acceptors(), Fallback: acceptor.RunFallback}
	if o.Wait {
		c.Fallback = acceptor.WaitFallback
	}
	if w != nil {
		c.Acceptors = append(c.Acceptors, w.Acceptors...)
	}
	if o.Accept.Input != "" {
		raw, err := loadArg(o.Accept.Input, o.IO.In)
		if err != nil {
			return nil, exit.Usagef("%s: %v", o.flagName("input"), err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, exit.Usagef("%s: want JSON or @FILE holding JSON: %v", o.flagName("input"), err)
		}
		c.Input = v
	}
	if len(o.Accept.List.exprs()) > 0 || w != nil {
		c.Decode = jmes.DecoderFor(c)
	}
	return c, nil
}
