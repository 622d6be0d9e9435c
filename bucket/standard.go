package bucket

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// The standard retry quota of the AWS SDKs (seed 000; SPEC "Retry budget").
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
)

// ErrTokenResolved is returned by ScheduleRetry on a token that was already
// resolved (by NotifySuccess, NotifyFailure or an earlier ScheduleRetry).
// Nothing is taken from the bucket.
var ErrTokenResolved = errors.New("retry token already resolved")

// quota is the arithmetic of a standard bucket, shared by Standard (in
// memory) and Scope (in a file).
type quota struct {
	Capacity  int `json:"capacity"`
	Available int `json:"available"`
}

// take removes cost tokens, or returns an *EmptyError and takes nothing.
func (q *quota) take(cost int) error {
	if cost > q.Available {
		return &EmptyError{Cost: cost, Available: q.Available, Capacity: q.Capacity}
	}
	q.Available -= cost
	return nil
}

// give returns n tokens, capped at capacity.
func (q *quota) give(n int) {
	q.Available = min(q.Available+n, q.Capacity)
}

// pool is what a token pays its retries from and refunds to.
type pool interface {
	take(ctx context.Context, cost int) error
	give(n int)
}

// token is the Token of Standard and Scope. refund is what NotifySuccess
// returns: the cost of the retry that led to this attempt, or
// NoRetryIncrement for the first attempt.
type token struct {
	pool     pool
	refund   int
	resolved atomic.Bool
}

// ScheduleRetry resolves t and takes the cost of a retry (ThrottlingRetryCost
// when throttling, else RetryCost) from the bucket, returning the token of the
// next attempt. When the bucket holds less than the cost it takes nothing
// and returns an *EmptyError; t is resolved all the same. On a token already
// resolved it returns ErrTokenResolved and takes nothing.
func (t *token) ScheduleRetry(ctx context.Context, throttling bool) (Token, error) {
	if !t.resolved.CompareAndSwap(false, true) {
		return nil, ErrTokenResolved
	}
	cost := RetryCost
	if throttling {
		cost = ThrottlingRetryCost
	}
	if err := t.pool.take(ctx, cost); err != nil {
		return nil, err
	}
	return &token{pool: t.pool, refund: cost}, nil
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

// Standard is the standard retry token bucket of the AWS SDKs, in memory: it
// starts full; a retry costs RetryCost tokens (ThrottlingRetryCost after a
// throttling error); a run that succeeds refunds what its last retry cost, or
// NoRetryIncrement when its first attempt succeeded, never beyond capacity; a
// run that fails refunds nothing. The first attempt of a run is free, so
// Acquire never fails. Tokens do not refill with time.
//
// A Standard is safe for concurrent use by many runs. Each Token is resolved
// once: after NotifySuccess, NotifyFailure or ScheduleRetry, further calls on
// the same token are no-ops (ScheduleRetry returns ErrTokenResolved).
type Standard struct {
	mu sync.Mutex
	q  quota
}

// NewStandard returns a full bucket of capacity tokens; capacity ≤ 0 means
// DefaultCapacity.
func NewStandard(capacity int) *Standard {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Standard{q: quota{Capacity: capacity, Available: capacity}}
}

// Acquire returns the token of a run's first attempt. It takes nothing,
// never blocks and never fails; ctx is unused.
func (s *Standard) Acquire(context.Context) (Token, error) {
	return &token{pool: s, refund: NoRetryIncrement}, nil
}

// Available returns the tokens the bucket holds now.
func (s *Standard) Available() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.Available
}

// Capacity returns the most tokens the bucket can hold.
func (s *Standard) Capacity() int {
	return s.q.Capacity // immutable after NewStandard
}

func (s *Standard) take(_ context.Context, cost int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.take(cost)
}

func (s *Standard) give(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q.give(n)
}
