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
	"github.com/retry-dev/retry/cmd/internal/sources"
	"github.com/retry-dev/retry/runner/redact"
)

// backoff builds the backoff for ordinary retries and the one for
// throttling retries.
func (o *Options) backoff(w *waitermodel.Model) (bo, throttle backoff.Backoff, err error) {
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
	if o.Readiness() {
		// A readiness check notices a service within a second of it
		// coming up and stays gentle while it is down: 100ms, 200ms,
		// 400ms, 800ms, then every second, without jitter (bench/
		// readiness.sh: noticed about 0.5s after "up", fewer requests
		// than wait-on's 250ms polls). Flags and RETRY_ variables win.
		if !o.Given("backoff") {
			kind = "exponential"
		}
		if !o.Given("delay") {
			delay = ReadinessDelay
		}
		if !o.Given("max-delay") {
			maxDelay = ReadinessMaxDelay
		}
		if !o.Given("jitter") {
			jitter = "none"
		}
	}
	if !o.Given("max-delay") && maxDelay < delay {
		maxDelay = delay // a default cap never contradicts the delay the user gave
	}
	strategy, ok := backoff.Lookup(kind)
	if !ok { // the flag accepts only the table's words; a waiter model names one of them
		return nil, nil, exit.Usagef("--backoff: %q: want one of %s", kind, strings.Join(backoff.Names(), ", "))
	}
	params := backoff.Params{Base: delay, Max: maxDelay, Multiplier: o.Delay.Multiplier}
	if strategy.Waiter {
		// --delay 0: the Smithy formula degenerates to no delay at all.
		return strategy.New(params, backoff.None), nil, nil
	}
	j := strategy.DefaultJitter
	if jitter != "" {
		if j, err = backoff.ParseJitter(jitter); err != nil {
			return nil, nil, exit.Usagef("--jitter: %q: %v", jitter, err)
		}
	}
	base := func(d time.Duration) backoff.Backoff {
		p := params
		p.Base = d
		return strategy.New(p, j)
	}
	if strings.EqualFold(o.Retry.Mode, "adaptive") && !o.Given("throttle-delay") {
		// The adaptive limiter already paces every send after a throttle
		// (at the rate CUBIC allows, shared by the scope): a 5s throttling
		// backoff on top of it only delays the retries the limiter would
		// let through, and leaves a throttled client of a storm last (with
		// the limiter's fleet start, bench/storm.sh's 50 clients against a
		// service admitting 10 req/s are all done in 5.5–6.2s, medians,
		// instead of 7.6s). An explicit --throttle-delay still wins.
		return base(delay), nil, nil
	}
	return base(delay), base(max(delay, o.Delay.Throttle)), nil
}

// shownValue is what a path acceptor saw as logs and reports show it:
// hidden when its expression names a secret (redact.NamesSecret).
func shownValue(expr, value string) string {
	if value != "" && redact.NamesSecret(expr) {
		return redact.Placeholder
	}
	return value
}

// chain builds the acceptor chain: flags in command-line order, then the
// waiter's acceptors, then the fallback of run or wait.
func (o *Options) chain(w *waitermodel.Model, kind acceptor.AttemptKind) (*acceptor.Chain, error) {
	c := &acceptor.Chain{Acceptors: o.Accept.List.acceptors(), Fallback: acceptor.RunFallback, Shown: shownValue}
	if o.wait {
		c.Fallback = acceptor.WaitFallback // a successful poll no acceptor claims is polled again
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
	if ready := sources.Of(kind).Ready; ready != nil && o.Readiness() && len(c.Acceptors) == 0 {
		c.Acceptors = ready() // wait --url with no acceptor waits for a 2xx
	}
	return c, nil
}

// Readiness reports whether this is a readiness check: retry wait on a
// source a flag chooses (--url, --tcp) naming no waiter model. It gets
// delays that notice a service within a second (ReadinessDelay doubling
// to ReadinessMaxDelay, no jitter) instead of the waiter backoff of a
// cloud resource.
func (o *Options) Readiness() bool {
	return o.wait && len(o.chosen()) > 0 && o.Waiter.Name == "" && o.Waiter.File == ""
}

// The delays of a readiness check: the first, and the cap it doubles to.
const (
	ReadinessDelay    = 100 * time.Millisecond
	ReadinessMaxDelay = time.Second
)
