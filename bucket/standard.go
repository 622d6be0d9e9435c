package bucket

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// The standard retry quota of the AWS SDKs (SPEC "Retry budget").
const (
	// DefaultCapacity is the number of tokens a standard bucket starts with
	// and never exceeds.
	DefaultCapacity = 500
	// RetryCost is what a retry costs.
	RetryCost = 14
	// ThrottlingRetryCost is what a retry after a throttling error costs.
	ThrottlingRetryCost = 5
	// NoRetryIncrement is what a success on the first attempt (no retry)
	// refunds.
	NoRetryIncrement = 1
	// RefillRate is the tokens a standard bucket earns back per second,
	// whatever its runs do (smithy-kotlin's refillUnitsPerSecond).
	RefillRate = 10
	// RefillInterval is the time one token takes to come back: a bucket
	// earns whole tokens, one every RefillInterval, and keeps the remainder
	// of the interval for the next one.
	RefillInterval = time.Second / RefillRate
	// WaitWindow is what a run that waits for the refill (--when-empty
	// wait) may spend of a full bucket: its retries go ahead only while the
	// bucket keeps WaitReserve(capacity) tokens after paying. A fleet in
	// wait mode thus sends about three retries ahead of what its successes
	// refund and the refill earns, instead of spending 500 tokens in the
	// first second of an outage (bench/storm.sh, profile 503).
	WaitWindow = 50
)

// WaitReserve is what a bucket of capacity keeps back from runs that wait
// for the refill: capacity − WaitWindow, or 0 for a smaller bucket.
func WaitReserve(capacity int) int { return max(capacity-WaitWindow, 0) }

// ErrTokenResolved is returned by ScheduleRetry on a token that was already
// resolved (by NotifySuccess, NotifyFailure, Cancel or an earlier successful
// ScheduleRetry). Nothing is taken from the bucket.
var ErrTokenResolved = errors.New("retry token already resolved")

// Quota is the arithmetic of a standard bucket, shared by Standard (in
// memory) and Scope (in a file). The Redis store runs the same arithmetic
// in a server-side script.
type Quota struct {
	Capacity  int `json:"capacity"`
	Available int `json:"available"`
	// RefilledAt is when the bucket last earned a token, or was last seen
	// full; the zero time means never (the next refill only starts the
	// clock).
	RefilledAt time.Time `json:"refilled_at,omitzero"`
}

// Refill adds the whole tokens earned since RefilledAt (one per
// RefillInterval), up to capacity. A full bucket, a first call and a clock
// gone back only set RefilledAt to now.
func (q *Quota) Refill(now time.Time) {
	if q.RefilledAt.IsZero() || now.Before(q.RefilledAt) || q.Available >= q.Capacity {
		q.Available = min(q.Available, q.Capacity)
		q.RefilledAt = now
		return
	}
	earned := now.Sub(q.RefilledAt) / RefillInterval
	if earned >= time.Duration(q.Capacity-q.Available) {
		q.Available = q.Capacity
		q.RefilledAt = now
		return
	}
	q.Available += int(earned)
	q.RefilledAt = q.RefilledAt.Add(earned * RefillInterval)
}

// until returns how long after now the bucket, refilled at now, holds cost
// tokens; 0 when it does. A cost beyond capacity is never met: the result
// is then the time to fill the bucket.
func (q *Quota) until(now time.Time, cost int) time.Duration {
	missing := min(cost, q.Capacity) - q.Available
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing)*RefillInterval - now.Sub(q.RefilledAt)
}

// Take refills at now, then removes cost tokens when reserve tokens are
// left after them, or returns an *EmptyError (with the wait until the
// refill pays) and takes nothing.
func (q *Quota) Take(now time.Time, cost, reserve int) error {
	q.Refill(now)
	if cost+reserve > q.Available {
		return &EmptyError{Cost: cost, Reserve: reserve, Available: q.Available, Capacity: q.Capacity, Refill: q.until(now, cost+reserve)}
	}
	q.Available -= cost
	return nil
}

// Give refills at now, then returns n tokens, capped at capacity.
func (q *Quota) Give(now time.Time, n int) {
	q.Refill(now)
	q.Available = min(q.Available+n, q.Capacity)
}

// pool is what a token pays its retries from and refunds to.
type pool interface {
	take(ctx context.Context, cost int) error
	give(n int)
}

// token is the Token of Standard, Scope and Shared. cost is what the
// retry that led to this attempt took (0 for a first attempt); refund is
// what NotifySuccess returns: that cost, or NoRetryIncrement for the first
// attempt.
type token struct {
	pool     pool
	cost     int
	refund   int
	resolved atomic.Bool
}

// newToken returns the token of a run's first attempt.
func newToken(p pool) *token { return &token{pool: p, refund: NoRetryIncrement} }

// NewToken returns the token of a run's first attempt for a bucket kept
// elsewhere (bucket/file's scope files): take pays a retry's cost or
// returns an *EmptyError, give refunds tokens.
func NewToken(take func(ctx context.Context, cost int) error, give func(n int)) Token {
	return newToken(poolFuncs{take, give})
}

// poolFuncs is a pool of two functions (NewToken).
type poolFuncs struct {
	takeFn func(ctx context.Context, cost int) error
	giveFn func(n int)
}

func (p poolFuncs) take(ctx context.Context, cost int) error { return p.takeFn(ctx, cost) }
func (p poolFuncs) give(n int)                               { p.giveFn(n) }

// ScheduleRetry takes the cost of a retry (ThrottlingRetryCost when
// throttling, else RetryCost) from the bucket, resolves t and returns the
// token of the next attempt. When the bucket holds less than the cost it
// takes nothing and returns an *EmptyError, and t stays unresolved: the
// caller may wait for the refill and call again, or resolve it. On a token
// already resolved it returns ErrTokenResolved and takes nothing.
func (t *token) ScheduleRetry(ctx context.Context, throttling bool) (Token, error) {
	if t.resolved.Load() {
		return nil, ErrTokenResolved
	}
	cost := RetryCost
	if throttling {
		cost = ThrottlingRetryCost
	}
	if err := t.pool.take(ctx, cost); err != nil {
		return nil, err
	}
	if !t.resolved.CompareAndSwap(false, true) {
		// Resolved by another goroutine meanwhile: give the cost back.
		t.pool.give(cost)
		return nil, ErrTokenResolved
	}
	return &token{pool: t.pool, cost: cost, refund: cost}, nil
}

// NotifySuccess resolves t and refunds the cost of the retry that led to
// this attempt (NoRetryIncrement for a first attempt), capped at capacity.
// On a resolved token it does nothing.
func (t *token) NotifySuccess() {
	if t.resolved.CompareAndSwap(false, true) {
		t.pool.give(t.refund)
	}
}

// NotifyFailure resolves t without a refund. On a resolved token it does
// nothing.
func (t *token) NotifyFailure() {
	t.resolved.Store(true)
}

// Cancel resolves t and gives back what its retry cost: the attempt it paid
// for will not run. A first attempt's token gives nothing back. On a
// resolved token it does nothing.
func (t *token) Cancel() {
	if t.resolved.CompareAndSwap(false, true) && t.cost > 0 {
		t.pool.give(t.cost)
	}
}

// StandardOptions configures a Standard bucket. The zero value is a full
// bucket of DefaultCapacity on the real clock.
type StandardOptions struct {
	// Capacity is the most tokens the bucket holds; ≤ 0 means
	// DefaultCapacity.
	Capacity int
	// Now returns the current time, for the refill; nil means time.Now.
	Now func() time.Time
	// Reserve is what a retry must leave in the bucket after paying
	// (WaitReserve for a run that waits for the refill); 0 spends it all.
	Reserve int
}

func (o StandardOptions) capacity() int {
	if o.Capacity <= 0 {
		return DefaultCapacity
	}
	return o.Capacity
}

func (o StandardOptions) now() func() time.Time {
	if o.Now != nil {
		return o.Now
	}
	return time.Now
}

// Standard is the standard retry token bucket of the AWS SDKs, in memory: it
// starts full; a retry costs RetryCost tokens (ThrottlingRetryCost after a
// throttling error); a run that succeeds refunds what its last retry cost, or
// NoRetryIncrement when its first attempt succeeded; a run that fails
// refunds nothing; it earns RefillRate tokens per second with time. It never
// holds more than its capacity. The first attempt of a run is free, so
// Acquire never fails.
//
// A Standard is safe for concurrent use by many runs. Each Token is resolved
// once: after NotifySuccess, NotifyFailure, Cancel or a successful
// ScheduleRetry, further calls on the same token are no-ops (ScheduleRetry
// returns ErrTokenResolved).
type Standard struct {
	now     func() time.Time
	reserve int
	mu      sync.Mutex
	q       Quota
}

// NewStandard returns a full bucket.
func NewStandard(opts StandardOptions) *Standard {
	s := &Standard{now: opts.now(), reserve: max(opts.Reserve, 0)}
	s.q = Quota{Capacity: opts.capacity(), Available: opts.capacity(), RefilledAt: s.now()}
	return s
}

// Acquire returns the token of a run's first attempt. It takes nothing,
// never blocks and never fails; ctx is unused.
func (s *Standard) Acquire(context.Context) (Token, error) {
	return newToken(s), nil
}

// Available returns the tokens the bucket holds now, refill included.
func (s *Standard) Available() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q.Refill(s.now())
	return s.q.Available
}

// Capacity returns the most tokens the bucket can hold.
func (s *Standard) Capacity() int {
	return s.q.Capacity // immutable after NewStandard
}

func (s *Standard) take(_ context.Context, cost int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.Take(s.now(), cost, s.reserve)
}

func (s *Standard) give(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q.Give(s.now(), n)
}
