package bucket

import "context"

// NoOp is a bucket that never runs out: every retry is free. Waiters use it
// (seed 004), and so does --mode off.
type NoOp struct{}

// Acquire returns a token that never fails.
func (NoOp) Acquire(context.Context) (Token, error) { return noopToken{}, nil }

type noopToken struct{}

func (t noopToken) ScheduleRetry(context.Context, bool) (Token, error) { return t, nil }
func (noopToken) NotifySuccess()                                       {}
func (noopToken) NotifyFailure()                                       {}
func (noopToken) Cancel()                                              {}
