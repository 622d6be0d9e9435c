package file

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/privatefile"
)

// scopeVersion is the version of the scope file format. A file of another
// version is treated as absent.
const scopeVersion = 1

// scopeState is the content of a scope file, DIR/NAME.json.
type scopeState struct {
	Version int          `json:"version"`
	Bucket  bucket.Quota `json:"bucket"`
	// Updated is when a process last changed the state.
	Updated time.Time `json:"updated,omitzero"`
	// Adaptive is the shared adaptive limiter; absent until a limiter of
	// the scope records its first response.
	Adaptive *bucket.AdaptiveState `json:"adaptive,omitempty"`
}

// Scope is a standard retry token bucket, and the state of an adaptive
// limiter, shared by every process (and every Scope value) that opens the
// same name in the same directory: `retry --scope NAME`. The state lives in
// DIR/NAME.json; each read-modify-write of it holds an exclusive flock on
// the file, so concurrent processes share one capacity and lose no tokens.
//
// The bucket has the semantics of Standard: full at first, a retry costs
// RetryCost (ThrottlingRetryCost after throttling), a success refunds the
// last retry's cost (NoRetryIncrement after a first-try success), never
// beyond the capacity; tokens are resolved once. Each process uses its own
// capacity: the available tokens are clamped to it when read.
//
// A file that is empty, unreadable as JSON, of another format version or
// holding impossible numbers is treated as absent: the bucket starts over
// full. A file removed or replaced between operations is likewise started
// over.
//
// Waiting for the lock does not watch contexts: the lock is held only for
// a read and a write of a small file. Errors of the file are returned where
// a method can return one; NotifySuccess and ScopeLimiter.Update cannot, so
// Err reports the first of those.
//
// A Scope is safe for concurrent use.
type Scope struct {
	path     string
	name     string
	capacity int
	reserve  int
	now      func() time.Time

	// mu serialises this value's users: a flock belongs to the open file,
	// which goroutines sharing one would share.
	mu  sync.Mutex
	err error // first error of a method that cannot return one
}

// ScopeOptions configures OpenScope. The zero value is a bucket of
// bucket.DefaultCapacity on the real clock.
type ScopeOptions struct {
	// Capacity is the most tokens this process lets the bucket hold; ≤ 0
	// means bucket.DefaultCapacity.
	Capacity int
	// Now returns the current time, for the refill and the adaptive
	// limiter; nil means time.Now.
	Now func() time.Time
	// Reserve is what this process's retries must leave in the bucket
	// after paying (WaitReserve for --when-empty wait); 0 spends it all.
	Reserve int
}

// capacity is the most tokens the options let the bucket hold: ≤ 0 is
// bucket.DefaultCapacity, as for bucket.Standard.
func (o ScopeOptions) capacity() int {
	if o.Capacity <= 0 {
		return bucket.DefaultCapacity
	}
	return o.Capacity
}

// clock is the options' clock: nil is time.Now.
func (o ScopeOptions) clock() func() time.Time {
	if o.Now != nil {
		return o.Now
	}
	return time.Now
}

// OpenScope opens the scope name in dir, creating dir (mode 0700, as are
// missing parents) and the file dir/name.json (mode 0600) when missing.
// A name that is empty or holds a path separator or a NUL byte is refused
// with an error wrapping ErrScopeName. A directory or file that is not this
// user's, a file that is not a regular file (a FIFO, a device, a symlink),
// or a directory others may write to that this user does not own, is
// refused with an error wrapping ErrUntrusted; the modes of a directory
// and a file this user owns are set to 0700 and 0600. An I/O failure (dir
// not creatable, file not writable, no file locks on this platform) is
// returned as well.
func OpenScope(dir, name string, opts ScopeOptions) (*Scope, error) {
	if err := bucket.CheckName(name); err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, errors.New("scope directory is empty")
	}
	if err := makeStateDir(dir); err != nil {
		return nil, err
	}
	s := &Scope{path: filepath.Join(dir, name+".json"), name: name, capacity: opts.capacity(), reserve: max(opts.Reserve, 0), now: opts.clock()}
	if err := s.modify(func(*scopeState) bool { return false }); err != nil {
		return nil, err
	}
	return s, nil
}

// makeStateDir creates dir (0700) when missing and checks that it can be
// trusted: ours, and private (its mode is fixed when it is ours).
func makeStateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	return checkStateDir(dir)
}

// Path returns the scope's state file.
func (s *Scope) Path() string { return s.path }

// Capacity returns the most tokens this process lets the bucket hold.
func (s *Scope) Capacity() int { return s.capacity }

// Acquire returns the token of a run's first attempt. It takes nothing
// (the first attempt is free) but reads the file, so a broken scope shows
// before the first attempt; its error is then returned. ctx is unused.
func (s *Scope) Acquire(context.Context) (bucket.Token, error) {
	if err := s.modify(func(*scopeState) bool { return false }); err != nil {
		return nil, err
	}
	return bucket.NewToken(s.take, s.give), nil
}

// Available returns the tokens the shared bucket holds now, refill
// included.
func (s *Scope) Available() (int, error) {
	var n int
	err := s.modify(func(st *scopeState) bool {
		st.Bucket.Refill(s.now())
		n = st.Bucket.Available
		return false
	})
	return n, err
}

// Err returns the first error met by a method that cannot return one
// (NotifySuccess of a token, ScopeLimiter.Update), or nil.
func (s *Scope) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Scope) take(ctx context.Context, cost int) error { return s.Take(ctx, cost) }

func (s *Scope) give(n int) { s.record(s.Give(context.Background(), n)) }

// Take refills the shared bucket and takes cost tokens from it when the
// reserve of ScopeOptions is left after them, or returns an *bucket.EmptyError and
// takes nothing (Store). ctx is unused.
func (s *Scope) Take(_ context.Context, cost int) error {
	var empty error
	err := s.modify(func(st *scopeState) bool {
		empty = st.Bucket.Take(s.now(), cost, s.reserve)
		return empty == nil
	})
	if err != nil {
		return err
	}
	return empty
}

// Give refills the shared bucket and returns n tokens to it, capped at
// capacity (Store). ctx is unused.
func (s *Scope) Give(_ context.Context, n int) error {
	return s.modify(func(st *scopeState) bool {
		st.Bucket.Give(s.now(), n)
		return true
	})
}

// Send takes a send token of the scope's adaptive limiter, or says how
// long until one is there (Store). ctx is unused.
func (s *Scope) Send(_ context.Context) (ok bool, wait time.Duration, err error) {
	return s.send(s.now)
}

// Record records a response in the scope's adaptive limiter (Store). ctx
// is unused.
func (s *Scope) Record(_ context.Context, throttled bool) error {
	return s.updateRate(s.now, throttled)
}

// send is the send step of the scope's adaptive limiter, at the time clock
// gives under the file lock: it takes a send token, or takes nothing and
// says how long until one is there. The scope's first send starts the
// limiter's clock, as creating an Adaptive does; otherwise a limiter not
// in force is not written.
func (s *Scope) send(clock func() time.Time) (ok bool, wait time.Duration, err error) {
	err = s.modify(func(st *scopeState) bool {
		now := clock()
		a, fresh := st.adaptive(now)
		if !a.Enabled {
			ok = true
			return fresh
		}
		ok, wait = a.Acquire(now)
		return true
	})
	return ok, wait, err
}

// updateRate records a response in the scope's adaptive limiter, at the
// time clock gives under the file lock.
func (s *Scope) updateRate(clock func() time.Time, throttled bool) error {
	return s.modify(func(st *scopeState) bool {
		now := clock()
		a, _ := st.adaptive(now)
		a.Update(now, throttled)
		return true
	})
}

// Info returns what `retry scope show` prints of the scope, refilled at
// now; nothing is written.
func (s *Scope) Info() (bucket.ScopeInfo, error) {
	var info bucket.ScopeInfo
	err := s.modify(func(st *scopeState) bool {
		info = st.info(s.name, s.now())
		return false
	})
	return info, err
}

// record keeps err as the scope's error if it is the first.
func (s *Scope) record(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// modify reads the state under the file lock, calls fn, and writes the
// state back if fn says it changed it.
func (s *Scope) modify(fn func(*scopeState) (changed bool)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.lock()
	if errors.Is(err, ErrUntrusted) {
		return err // names the file already
	}
	if err != nil {
		return fmt.Errorf("scope %s: %w", s.path, err)
	}
	defer f.Close() // releases the lock
	st, err := s.read(f)
	if err != nil {
		return fmt.Errorf("scope %s: %w", s.path, err)
	}
	if !fn(st) {
		return nil
	}
	st.Updated = s.now()
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("scope %s: %w", s.path, err)
	}
	data = append(data, '\n')
	if _, err := f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("scope %s: %w", s.path, err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return fmt.Errorf("scope %s: %w", s.path, err)
	}
	return nil
}

// lock opens the state file, creating it, and locks it. If the file was
// removed or replaced while this waited for the lock, it opens the new one.
func (s *Scope) lock() (*os.File, error) {
	const tries = 10
	for range tries {
		f, err := openStateFile(s.path)
		if err != nil {
			return nil, err
		}
		if err := privatefile.Lock(f); err != nil {
			f.Close()
			return nil, err
		}
		if privatefile.Same(f, s.path) {
			return f, nil
		}
		f.Close() // removed or replaced while this waited: open the new one
	}
	return nil, fmt.Errorf("the file kept being replaced (%d tries)", tries)
}

// read returns the state in f, or a fresh one if f holds none that is
// usable. The bucket is clamped to this process's capacity.
func (s *Scope) read(f *os.File) (*scopeState, error) {
	data, err := io.ReadAll(io.LimitReader(f, maxScopeFile))
	if err != nil {
		return nil, err
	}
	return parseScopeState(data, s.capacity, s.now()), nil
}

// maxScopeFile bounds what is read of a scope file: a state is a few
// hundred bytes, and anything larger is not one.
const maxScopeFile = 64 << 10

// parseScopeState reads a scope file's content. Content that is empty, not
// JSON, of another version, or holding impossible numbers gives a full
// bucket of capacity refilled at now; a valid state is clamped to capacity,
// and an impossible adaptive state is dropped. It never fails.
func parseScopeState(data []byte, capacity int, now time.Time) *scopeState {
	st := &scopeState{}
	// A decoder, not Unmarshal: it ignores what follows the first value,
	// the tail of a longer state left by a writer that died between its
	// write and its truncate.
	dec := json.NewDecoder(bytes.NewReader(data))
	if len(data) == 0 || dec.Decode(st) != nil || st.Version != scopeVersion || st.Bucket.Available < 0 {
		st = &scopeState{Bucket: bucket.Quota{Available: capacity, RefilledAt: now}}
	}
	st.Version = scopeVersion
	st.Bucket.Capacity = capacity
	st.Bucket.Available = min(st.Bucket.Available, capacity)
	if st.Adaptive != nil && !st.Adaptive.Valid() {
		st.Adaptive = nil
	}
	return st
}

// scopeIdleReset is how long a scope's adaptive state may go unused before
// it is started over: a rate measured that long ago no longer describes the
// service, and an old throttle should not pace a new day's first runs.
const scopeIdleReset = 10 * time.Minute

// adaptive returns the scope's adaptive state at now, starting it over when
// absent or idle for longer than scopeIdleReset. fresh reports a new state.
func (st *scopeState) adaptive(now time.Time) (s *bucket.AdaptiveState, fresh bool) {
	if a := st.Adaptive; a != nil && (a.LastRefill.IsZero() || now.Sub(a.LastRefill) <= scopeIdleReset) {
		return a, false
	}
	a := bucket.NewAdaptiveState(now)
	st.Adaptive = &a
	return st.Adaptive, true
}

// Limiter returns the adaptive rate limiter of the scope: an Adaptive
// whose state lives in the scope file, so every process of the scope is
// paced by the rate they measure and the throttles they see together.
func (s *Scope) Limiter(opts bucket.AdaptiveOptions) *ScopeLimiter {
	now, sleep := opts.Now, opts.Sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = bucket.Sleep
	}
	return &ScopeLimiter{scope: s, now: now, sleep: sleep}
}

// ScopeLimiter is the adaptive limiter of a Scope, with the behaviour of
// Adaptive, except that a state left unused for 10 minutes is started over
// (no pacing until the next throttle). It is safe for concurrent use.
type ScopeLimiter struct {
	scope *Scope
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
}

// Wait blocks until a send token of the scope is available and takes it;
// it returns nil at once while no process of the scope has seen a
// throttling response. When ctx ends first it returns context.Cause(ctx)
// and takes nothing. An error of the scope file is returned.
func (l *ScopeLimiter) Wait(ctx context.Context) error {
	return bucket.Await(ctx, l.sleep, func() (bool, time.Duration, error) { return l.scope.send(l.now) })
}

// Update records how an attempt went in the scope's shared rate (see
// Adaptive.Update). An error of the scope file is kept for Scope.Err.
func (l *ScopeLimiter) Update(throttled bool) {
	l.scope.record(l.scope.updateRate(l.now, throttled))
}

// Stats returns a snapshot of the scope's shared limiter.
func (l *ScopeLimiter) Stats() (bucket.AdaptiveStats, error) {
	var stats bucket.AdaptiveStats
	err := l.scope.modify(func(st *scopeState) bool {
		if st.Adaptive != nil {
			stats = st.Adaptive.Stats()
		}
		return false
	})
	return stats, err
}

// The interfaces of bucket a Scope and its limiter implement.
var (
	_ bucket.Bucket  = (*Scope)(nil)
	_ bucket.Store   = (*Scope)(nil)
	_ bucket.Limiter = (*ScopeLimiter)(nil)
)
