package bucket

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// The constants of the adaptive client-side rate limiter, as in the AWS SDKs
// (botocore, aws-sdk-go-v2; seed 002).
const (
	// AdaptiveBeta is the CUBIC multiplicative decrease: a throttling
	// response cuts the rate to beta times the rate in use.
	AdaptiveBeta = 0.7
	// AdaptiveScaleConstant is CUBIC's C: how fast the rate grows back.
	AdaptiveScaleConstant = 0.4
	// AdaptiveSmoothing weighs the newest measured transmit rate against
	// the running average.
	AdaptiveSmoothing = 0.8
	// AdaptiveMinFillRate is the lowest fill rate, in send tokens per second.
	AdaptiveMinFillRate = 0.5
	// AdaptiveMinCapacity is the smallest send-token bucket.
	AdaptiveMinCapacity = 1.0
)

// rateBucketWidth is the width, in seconds, of the buckets in which the
// transmit rate is measured.
const rateBucketWidth = 0.5

// AdaptiveState is the state of the adaptive rate limiter: CUBIC over the
// measured transmit rate, feeding a send-token bucket that is in force only
// once a throttling response was seen. Its methods take the time so that
// the same state serves one process (Adaptive) or a scope file
// (ScopeLimiter). Times in seconds are Unix seconds as float64, as the SDKs
// keep them.
type AdaptiveState struct {
	// Enabled: a throttling response was seen; sends now take tokens.
	Enabled bool `json:"enabled"`
	// FillRate is the send-token refill rate, per second.
	FillRate float64 `json:"fill_rate"`
	// Capacity is the most send tokens the bucket holds.
	Capacity float64 `json:"capacity"`
	// Tokens is what the bucket held at LastRefill.
	Tokens     float64   `json:"tokens"`
	LastRefill time.Time `json:"last_refill"`

	// MeasuredRate is the smoothed transmit rate, per second, over
	// half-second buckets; RateBucket is the start of the current bucket
	// (Unix seconds) and RequestCount the responses counted in it.
	MeasuredRate float64 `json:"measured_rate"`
	RateBucket   float64 `json:"rate_bucket"`
	RequestCount int64   `json:"request_count"`

	// CUBIC: LastMaxRate is W_max, the rate at the last throttle;
	// TimeWindow is K, the seconds CUBIC takes to get back to it;
	// CalculatedRate is CUBIC's last answer.
	LastMaxRate    float64   `json:"last_max_rate"`
	LastThrottle   time.Time `json:"last_throttle"`
	TimeWindow     float64   `json:"time_window"`
	CalculatedRate float64   `json:"calculated_rate"`
}

// NewAdaptiveState returns the state of a limiter created at now: no
// measured rate, no throttle seen, sends not limited.
func NewAdaptiveState(now time.Time) AdaptiveState {
	return AdaptiveState{
		RateBucket:   math.Floor(unixSeconds(now)),
		LastThrottle: now,
	}
}

// Valid reports whether the state is one the limiter can work from (a
// scope file may hold anything).
func (s *AdaptiveState) Valid() bool {
	for _, f := range []float64{s.FillRate, s.Capacity, s.Tokens, s.MeasuredRate, s.RateBucket, s.LastMaxRate, s.TimeWindow} {
		if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return false
		}
	}
	if s.Enabled && (s.Capacity < AdaptiveMinCapacity || s.FillRate < AdaptiveMinFillRate) {
		return false // Wait could never get a whole token
	}
	return !math.IsNaN(s.CalculatedRate) && !math.IsInf(s.CalculatedRate, 0) && s.RequestCount >= 0
}

// Acquire takes one send token if the bucket is in force. When none is
// there it takes nothing and returns how long until one will be.
func (s *AdaptiveState) Acquire(now time.Time) (ok bool, wait time.Duration) {
	if !s.Enabled {
		return true, 0
	}
	s.refill(now)
	// The tolerance absorbs float rounding, so that a caller that sleeps
	// exactly the wait returned is served.
	const need, tolerance = 1.0, 1e-9
	if s.Tokens+tolerance >= need {
		s.Tokens = max(s.Tokens-need, 0)
		return true, 0
	}
	rate := max(s.FillRate, AdaptiveMinFillRate)
	return false, ceilSeconds((need - s.Tokens) / rate)
}

// Update records a response: throttled or not, it updates the measured
// rate, CUBIC's rate and the bucket's fill rate and capacity. The first
// throttled response puts the bucket in force.
func (s *AdaptiveState) Update(now time.Time, throttled bool) {
	s.measure(now)
	measured := s.rateSoFar()
	if throttled {
		rate := measured
		if s.Enabled {
			rate = min(measured, s.FillRate)
		}
		s.LastMaxRate = rate
		s.calculateTimeWindow()
		s.LastThrottle = now
		s.CalculatedRate = s.cubicThrottle(rate)
		s.Enabled = true
	} else {
		s.calculateTimeWindow()
		s.CalculatedRate = s.cubicSuccess(now)
	}
	s.setRate(now, min(s.CalculatedRate, 2*measured))
}

// rateSoFar is the transmit rate update works from: MeasuredRate, unless
// the open half-second bucket already proves a higher one. Responses in a
// bucket only add up, so the rate the open bucket will fold into
// MeasuredRate when it closes is at least what it would fold now; the SDKs
// wait for the close. For one client sending steadily the two agree; for a
// fleet that starts at once they do not: its first throttle comes within
// the first half-second, when MeasuredRate is still 0 (the SDKs then start
// the limiter at the 0.5/s floor and take seconds to come back to the rate
// the service admits). bench/storm.sh (50 clients, a service admitting 10
// req/s): the first throttle at 11 responses now starts the fill rate at
// 0.7·0.8·22 = 12.3/s instead of 0.5/s.
func (s *AdaptiveState) rateSoFar() float64 {
	open := float64(s.RequestCount)/rateBucketWidth*AdaptiveSmoothing + s.MeasuredRate*(1-AdaptiveSmoothing)
	return max(s.MeasuredRate, open)
}

// measure counts a response in the half-second bucket of now; when now is
// past the current bucket, the bucket's rate is folded into MeasuredRate.
func (s *AdaptiveState) measure(now time.Time) {
	bucket := math.Floor(unixSeconds(now)/rateBucketWidth) * rateBucketWidth
	s.RequestCount++
	switch {
	case bucket > s.RateBucket:
		current := float64(s.RequestCount) / (bucket - s.RateBucket)
		s.MeasuredRate = current*AdaptiveSmoothing + s.MeasuredRate*(1-AdaptiveSmoothing)
		s.RequestCount = 0
		s.RateBucket = bucket
	case bucket < s.RateBucket:
		// The clock went back: start measuring again from now rather than
		// freezing the rate until the clock catches up.
		s.RequestCount = 0
		s.RateBucket = bucket
	}
}

// calculateTimeWindow sets K = cbrt(W_max·(1-β)/C), the seconds after a
// throttle at which CUBIC is back at W_max.
func (s *AdaptiveState) calculateTimeWindow() {
	s.TimeWindow = math.Pow(s.LastMaxRate*(1-AdaptiveBeta)/AdaptiveScaleConstant, 1.0/3)
}

// cubicSuccess is CUBIC's rate at now: C·(t-K)³ + W_max, t the seconds since
// the last throttle.
func (s *AdaptiveState) cubicSuccess(now time.Time) float64 {
	dt := seconds(now.Sub(s.LastThrottle))
	return AdaptiveScaleConstant*math.Pow(dt-s.TimeWindow, 3) + s.LastMaxRate
}

// cubicThrottle is CUBIC's rate after a throttle at rate: β·rate.
func (s *AdaptiveState) cubicThrottle(rate float64) float64 {
	return rate * AdaptiveBeta
}

// setRate refills the bucket at the old rate up to now, then sets the fill
// rate (at least AdaptiveMinFillRate) and resizes the bucket to rate (at
// least AdaptiveMinCapacity), dropping tokens beyond it.
func (s *AdaptiveState) setRate(now time.Time, rate float64) {
	s.refill(now)
	s.FillRate = max(rate, AdaptiveMinFillRate)
	s.Capacity = max(rate, AdaptiveMinCapacity)
	s.Tokens = min(s.Tokens, s.Capacity)
}

// refill adds the tokens earned since LastRefill, up to capacity. The first
// call only starts the clock; a clock gone back adds nothing.
func (s *AdaptiveState) refill(now time.Time) {
	if s.LastRefill.IsZero() {
		s.LastRefill = now
		return
	}
	if elapsed := seconds(now.Sub(s.LastRefill)); elapsed > 0 {
		s.Tokens = min(s.Tokens+elapsed*s.FillRate, s.Capacity)
	}
	s.LastRefill = now
}

// Stats returns what logs show of the state.
func (s *AdaptiveState) Stats() AdaptiveStats {
	return AdaptiveStats{Enabled: s.Enabled, FillRate: s.FillRate, MeasuredRate: s.MeasuredRate, Tokens: s.Tokens}
}

// seconds converts d to seconds the way the SDKs do (one division, so the
// test vectors of the SDKs match to the last bit).
func seconds(d time.Duration) float64 {
	return float64(d) / float64(time.Second)
}

func unixSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / float64(time.Second)
}

// ceilSeconds converts seconds to a duration, rounding up to the next
// nanosecond so that a sleep of it is never short.
func ceilSeconds(sec float64) time.Duration {
	return time.Duration(math.Ceil(sec * float64(time.Second)))
}

// AdaptiveStats is a snapshot of an adaptive limiter, for logs.
type AdaptiveStats struct {
	// Enabled: a throttling response was seen and sends are paced.
	Enabled bool
	// FillRate is the allowed send rate, per second.
	FillRate float64
	// MeasuredRate is the smoothed rate of responses, per second.
	MeasuredRate float64
	// Tokens is the send tokens left at the last refill.
	Tokens float64
}

// AdaptiveOptions configures an adaptive limiter. The zero value uses the
// real clock.
type AdaptiveOptions struct {
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Sleep waits d or until ctx is done, returning context.Cause(ctx) in
	// that case; nil means Sleep.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (o AdaptiveOptions) now() func() time.Time {
	if o.Now != nil {
		return o.Now
	}
	return time.Now
}

func (o AdaptiveOptions) sleep() func(context.Context, time.Duration) error {
	if o.Sleep != nil {
		return o.Sleep
	}
	return Sleep
}

// Sleep waits d, or until ctx is done and then returns context.Cause(ctx);
// a d ≤ 0 does not wait. It is retry's one sleep that a context ends: the
// limiters' (when none is injected), the strategy's (runner) and the log's
// (cmd). It lives here because bucket is the lowest package that all three
// may import: bucket and backoff import no project package (SPEC.md's
// layering), so backoff, which would fit it as well, is not open to bucket.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// Adaptive is the adaptive client-side rate limiter of the AWS SDKs (seed
// 002), in memory: CUBIC congestion control over the measured rate of
// responses, pacing sends through a token bucket that fills at the
// calculated rate. Until the first throttling response, Wait never blocks;
// afterwards each Wait takes one send token, sleeping until one is there.
// The fill rate never drops below AdaptiveMinFillRate, so a Wait blocks at
// most 1/AdaptiveMinFillRate = 2s at a time.
//
// An Adaptive is safe for concurrent use.
type Adaptive struct {
	now   func() time.Time
	sleep func(context.Context, time.Duration) error

	mu sync.Mutex
	st AdaptiveState
}

// NewAdaptive returns a limiter that does not pace sends until its first
// throttling update.
func NewAdaptive(opts AdaptiveOptions) *Adaptive {
	a := &Adaptive{now: opts.now(), sleep: opts.sleep()}
	a.st = NewAdaptiveState(a.now())
	return a
}

// Wait blocks until a send token is available and takes it. It returns nil
// at once while no throttling response was seen. When ctx ends first (or is
// already done) it returns context.Cause(ctx) and takes nothing.
func (a *Adaptive) Wait(ctx context.Context) error {
	return Await(ctx, a.sleep, func() (bool, time.Duration, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		ok, d := a.st.Acquire(a.now())
		return ok, d, nil
	})
}

// Update records how an attempt went: throttled raises or lowers the
// allowed rate by CUBIC, and the first throttled update makes Wait pace
// sends.
func (a *Adaptive) Update(throttled bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.st.Update(a.now(), throttled)
}

// Stats returns a snapshot of the limiter.
func (a *Adaptive) Stats() AdaptiveStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.st.Stats()
}

// LateError is Wait's error when the next send token comes after ctx's
// deadline: the limiter knows at once that waiting is in vain, so the run
// ends then, not at its deadline.
type LateError struct {
	// Wait is how long until the next send token.
	Wait time.Duration
}

func (e *LateError) Error() string {
	return fmt.Sprintf("the rate limiter grants the next send in %v, past the deadline", e.Wait.Round(time.Millisecond))
}

// Await is the loop of Wait shared by Adaptive and ScopeLimiter: try to take
// a token; if there is none, sleep as long as try says and try again. When
// the token would come after ctx's deadline it returns a *LateError at
// once, taking nothing.
func Await(ctx context.Context, sleep func(context.Context, time.Duration) error, try func() (bool, time.Duration, error)) error {
	for {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		ok, d, err := try()
		if err != nil || ok {
			return err
		}
		if dl, has := ctx.Deadline(); has && d > time.Until(dl) {
			return &LateError{Wait: d}
		}
		if err := sleep(ctx, d); err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return err
		}
	}
}
