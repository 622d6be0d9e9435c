// Package testbucket holds what the tests of bucket and bucket/file share
// about tokens and rate limiters: taking a token, resolving it by retries,
// throttling a limiter to its floor, and recording when calls return. It
// imports no project package (bucket's own tests use it), so the token and
// limiter types are the callers'.
package testbucket

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// Acquire returns the first token of a run on b.
func Acquire[T any](t testing.TB, b interface {
	Acquire(context.Context) (T, error)
}) T {
	t.Helper()
	tok, err := b.Acquire(context.Background())
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	return tok
}

// ScheduleN resolves tok by ScheduleRetry n times in a row (each on the
// token the previous call returned) and returns the last token.
func ScheduleN[T interface {
	ScheduleRetry(context.Context, bool) (T, error)
}](t testing.TB, tok T, throttling bool, n int) T {
	t.Helper()
	for i := range n {
		next, err := tok.ScheduleRetry(context.Background(), throttling)
		if err != nil {
			t.Fatalf("retry %d: %v", i+1, err)
		}
		tok = next
	}
	return tok
}

// ThrottleToFloor records four throttles at one instant on a fresh
// adaptive limiter. The first, alone in the open half-second, cuts the
// rate so far (0.8·1/0.5 = 1.6/s) to 0.7·1.6 = 1.12/s; each next one cuts
// the fill rate again (0.784, 0.5488, 0.38416), and the floor holds it at
// 0.5/s: one send every 2s from an empty bucket of 1.
func ThrottleToFloor(l interface{ Update(bool) }) {
	for range 4 {
		l.Update(true)
	}
}

// MustWait waits for l's next send and fails t if Wait fails.
func MustWait(t testing.TB, l interface{ Wait(context.Context) error }) {
	t.Helper()
	if err := l.Wait(context.Background()); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

// Times records when calls return, as offsets from Start (under
// testing/synctest, exact offsets of the bubble's clock).
type Times struct {
	Start time.Time
	mu    sync.Mutex
	at    []time.Duration
}

// Mark records that a call returns now.
func (r *Times) Mark() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at = append(r.at, time.Since(r.Start))
}

// Get returns the offsets recorded so far, earliest first.
func (r *Times) Get() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.at)
	slices.Sort(out)
	return out
}
