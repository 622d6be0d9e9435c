// Package bucket holds retry token buckets: the standard bucket of the AWS
// SDKs (Standard), which bounds how many retries a client (or a scope of
// clients) may make, and a no-op bucket for waiters (NoOp); the adaptive
// client-side rate limiter of the AWS SDKs (Adaptive); and scopes (Scope),
// which share a bucket and a limiter among processes through a locked file.
//
// The interface follows seed 000: a strategy acquires a token before the
// first attempt; after each attempt it resolves the token exactly once, by
// NotifySuccess, NotifyFailure, or ScheduleRetry (which returns the token for
// the next attempt).
package bucket

import (
	"context"
	"fmt"
	"time"
)

// Bucket hands out retry tokens.
type Bucket interface {
	// Acquire returns the token for the first attempt of a run. It may block
	// (an adaptive rate limiter) until ctx is done.
	Acquire(ctx context.Context) (Token, error)
}

// Token is one attempt's claim on a bucket. Exactly one of its methods is
// called, once. The tokens of Standard and Scope tolerate more calls: after
// the first, NotifySuccess, NotifyFailure and Cancel do nothing and
// ScheduleRetry returns ErrTokenResolved, taking nothing.
type Token interface {
	// ScheduleRetry takes the cost of a retry from the bucket and returns the
	// token for the next attempt. throttling selects the throttling cost. An
	// empty bucket returns an *EmptyError and leaves the token unresolved,
	// so that the caller may wait for the refill and try again.
	ScheduleRetry(ctx context.Context, throttling bool) (Token, error)
	// Cancel gives back what the retry that produced this token cost: the
	// attempt it paid for will not run (the run ended on a signal or its
	// deadline while waiting for it).
	Cancel()
	// NotifySuccess returns to the bucket what this run's retries cost (or
	// the first-try refund).
	NotifySuccess()
	// NotifyFailure resolves the token without a refund: the run ended in
	// failure.
	NotifyFailure()
}

// EmptyError is returned by ScheduleRetry when the bucket holds fewer tokens
// than the retry costs plus the reserve it must leave.
type EmptyError struct {
	Cost      int // what the retry would have cost
	Reserve   int // what it had to leave in the bucket (WaitReserve), or 0
	Available int // what the bucket held
	Capacity  int
	// Refill is how long the bucket needs to earn the missing tokens at
	// RefillRate, if no other run takes them first.
	Refill time.Duration
}

func (e *EmptyError) Error() string {
	if e.Reserve > 0 {
		return fmt.Sprintf("retry token bucket is low: a retry costs %d above a reserve of %d, %d of %d left", e.Cost, e.Reserve, e.Available, e.Capacity)
	}
	return fmt.Sprintf("retry token bucket is empty: a retry costs %d, %d of %d left", e.Cost, e.Available, e.Capacity)
}

// Limiter is a client-side rate limiter (adaptive mode): Wait blocks until
// an attempt may be sent; Update tells it how the attempt went.
type Limiter interface {
	Wait(ctx context.Context) error
	Update(throttled bool)
}

// The types of this package that implement the interfaces.
var (
	_ Bucket  = NoOp{}
	_ Bucket  = (*Standard)(nil)
	_ Limiter = (*Adaptive)(nil)
	_ Bucket  = (*Shared)(nil)
	_ Limiter = (*Shared)(nil)
)
