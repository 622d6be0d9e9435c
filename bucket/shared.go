package bucket

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Store holds the state of a shared scope: a standard bucket and an
// adaptive limiter's state. Each method is one atomic update of that state
// at the store's clock (Scope: this machine's; Redis: the server's), so
// every process of the scope sees one bucket and one rate.
type Store interface {
	// Take refills the bucket and takes cost tokens, or returns an
	// *EmptyError and takes nothing.
	Take(ctx context.Context, cost int) error
	// Give refills the bucket and returns n tokens, capped at capacity.
	Give(ctx context.Context, n int) error
	// Send takes one send token of the adaptive limiter (always granted
	// until a throttling response was recorded), or takes nothing and says
	// how long until one is there.
	Send(ctx context.Context) (ok bool, wait time.Duration, err error)
	// Record records a response, throttled or not, in the adaptive
	// limiter (CUBIC over the measured rate).
	Record(ctx context.Context, throttled bool) error
}

// SharedOptions configures NewShared.
type SharedOptions struct {
	// Capacity of the per-process fallback bucket; ≤ 0 means
	// DefaultCapacity.
	Capacity int
	// Now and Sleep are the clock of the fallbacks and of Wait; nil means
	// the time package.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// OnError is called once, with the store's first error, when Shared
	// gives up on the store. nil: nothing is told.
	OnError func(error)
	// Reserve is the per-process fallback bucket's reserve (give the
	// store the same one).
	Reserve int
}

// Shared is the Bucket and the Limiter of a scope kept in a Store. A store
// that fails (unreachable, refusing a script, a broken file) never stops a
// run: on its first error other than an empty bucket, Shared calls OnError
// once and from then on uses a per-process bucket (a full Standard) and a
// per-process Adaptive, as a run without a store would. It is safe for
// concurrent use.
type Shared struct {
	store   Store
	onError func(error)
	sleep   func(context.Context, time.Duration) error
	local   *Standard
	limiter *Adaptive

	failed atomic.Bool
	once   sync.Once
}

// NewShared returns the bucket and limiter of store.
func NewShared(store Store, opts SharedOptions) *Shared {
	return &Shared{
		store:   store,
		onError: opts.OnError,
		sleep:   AdaptiveOptions{Sleep: opts.Sleep}.sleep(),
		local:   NewStandard(StandardOptions{Capacity: opts.Capacity, Now: opts.Now, Reserve: opts.Reserve}),
		limiter: NewAdaptive(AdaptiveOptions{Now: opts.Now, Sleep: opts.Sleep}),
	}
}

// Failed reports whether the store failed and Shared went per-process.
func (s *Shared) Failed() bool { return s.failed.Load() }

func (s *Shared) fail(err error) {
	s.failed.Store(true)
	s.once.Do(func() {
		if s.onError != nil {
			s.onError(err)
		}
	})
}

// Acquire returns the token of a run's first attempt; it never fails.
func (s *Shared) Acquire(context.Context) (Token, error) { return newToken(s), nil }

func (s *Shared) take(ctx context.Context, cost int) error {
	if !s.failed.Load() {
		err := s.store.Take(ctx, cost)
		var empty *EmptyError
		if err == nil || errors.As(err, &empty) {
			return err
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		s.fail(err)
	}
	return s.local.take(ctx, cost)
}

func (s *Shared) give(n int) {
	if !s.failed.Load() {
		err := s.store.Give(context.Background(), n)
		if err == nil {
			return
		}
		s.fail(err)
	}
	s.local.give(n)
}

// Wait blocks until the scope grants a send (adaptive mode), or ctx ends:
// then it returns context.Cause(ctx).
func (s *Shared) Wait(ctx context.Context) error {
	if !s.failed.Load() {
		err := Await(ctx, s.sleep, func() (bool, time.Duration, error) { return s.store.Send(ctx) })
		var late *LateError
		if err == nil || ctx.Err() != nil || errors.As(err, &late) {
			return err
		}
		s.fail(err)
	}
	return s.limiter.Wait(ctx)
}

// Update records how an attempt went in the scope's limiter.
func (s *Shared) Update(throttled bool) {
	if !s.failed.Load() {
		err := s.store.Record(context.Background(), throttled)
		if err == nil {
			return
		}
		s.fail(err)
	}
	s.limiter.Update(throttled)
}
