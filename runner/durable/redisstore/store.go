// Package redisstore keeps a durable retry sequence (retry --state
// redis://…/KEY) in a Redis server that many machines share, so that jobs
// whose machines come and go — a CronJob's pods, scheduled CI runners, an
// autoscaled fleet — continue one sequence, with the contract of a state
// file:
//
//   - one invocation at a time, across every machine: the lock is a key of
//     its own, taken with SET NX and an expiry that outlasts the attempt,
//     released when the invocation ends; a lock left by a process that
//     died on this machine is taken over at once (lock.go);
//   - every read-modify-write is one server-side script that first checks
//     the lock is still the caller's, so an invocation whose lock expired
//     cannot overwrite its successor;
//   - the sequence is one hash whose fields are those of the file format
//     (durable.Fields), so `HGETALL` shows what the file shows; a key
//     expires Keep after its last write.
package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/retry-dev/retry/bucket/redis"
	"github.com/retry-dev/retry/runner/durable"
)

// KeyPrefix starts the hash of every sequence: retry:state:KEY.
const KeyPrefix = "retry:state:"

// LockPrefix starts the lock of every sequence: retry:state-lock:KEY.
const LockPrefix = "retry:state-lock:"

// FencePrefix starts the fence of every sequence: retry:state-fence:KEY
// (scripts.go says what it is).
const FencePrefix = "retry:state-fence:"

// fenceMargin is what the fence outlasts the lock by beyond --kill-after:
// the supervisor's last pass over the run's processes.
const fenceMargin = time.Second

// DefaultKeep is how long a sequence's key lives after its last write: a
// terminal state is repeated that long, and a sequence nobody continues
// for that long is forgotten.
const DefaultKeep = 7 * 24 * time.Hour

// DefaultLockTTL is the expiry of the lock of an invocation whose attempt
// has no bound (no --attempt-timeout, no --max-time): the invocation renews
// it every third of it while it runs.
const DefaultLockTTL = time.Minute

// Key is a parsed --state redis://[USER:PASSWORD@]HOST[:PORT][/DB]/KEY.
type Key struct {
	Store *redis.URL
	// Name is KEY, the last element of the path.
	Name     string
	redacted string
}

const form = "redis://[USER:PASSWORD@]HOST[:PORT][/DB]/KEY, redis+cluster://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…]/KEY or redis+sentinel://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…]/MASTER[/DB]/KEY (rediss… for TLS)"

// ParseKey parses a --state URL: the store as --scope-store reads it
// (redis.ParseURL), then the key, the last element of the path, not empty.
// Errors never hold the password.
func ParseKey(raw string) (*Key, error) {
	su, name, err := redis.ParseKeyURL(raw, form)
	if err != nil {
		return nil, err
	}
	return &Key{Store: su, Name: name, redacted: su.String() + "/" + url.PathEscape(name)}, nil
}

// keys are the hash, the lock and the fence of the sequence name:
// retry:state:NAME, retry:state-lock:NAME and retry:state-fence:NAME; on a
// cluster retry:state:{NAME} and so on, whose hash tag puts all in one
// slot (a script may only touch the keys of one slot).
func keys(k *Key) (state, lock, fence string) {
	name := k.Name
	if k.Store.Topology == redis.Cluster {
		name = "{" + name + "}"
	}
	return KeyPrefix + name, LockPrefix + name, FencePrefix + name
}

// String is the URL with its password replaced by xxxxx.
func (k *Key) String() string { return k.redacted }

// UnreachableError is a store that cannot be reached (or answers that it
// cannot serve now: loading, busy): the invocation runs nothing, and the
// next one tries again.
type UnreachableError struct{ Err error }

func (e *UnreachableError) Error() string { return "the state store is unreachable: " + e.Err.Error() }
func (e *UnreachableError) Unwrap() error { return e.Err }

// LostError is a write refused because the lock is no longer the
// invocation's: it expired (the attempt outlasted it) and another
// invocation may have taken it.
type LostError struct{ Key string }

func (e *LostError) Error() string {
	return e.Key + ": the lock of the sequence expired during the attempt; its outcome is not recorded"
}

// FencedError is a lock that is free while the sequence's last attempt
// may still run: its holder's lock expired during it (the holder stopped,
// cut off from Redis, or Redis restarted), and the holder's supervisor
// ends it at the latest when its fence expires, Left from now. Until then
// the attempt is not counted as crashed, and none other starts.
type FencedError struct{ Left time.Duration }

func (e *FencedError) Error() string {
	return fmt.Sprintf("the lock of the attempt that runs expired, but that attempt may still be running for %s (its holder's lease and --kill-after)", e.Left.Round(time.Millisecond))
}

// Options are how Lock holds a sequence.
type Options struct {
	// TTL is the lock's expiry: more than the attempt can last. 0 is a
	// lease of Renewed, renewed every third of it while the invocation
	// runs.
	TTL time.Duration
	// Renewed is the renewed lease; 0 is DefaultLockTTL.
	Renewed time.Duration
	// Keep is how long the key lives after a write; 0 is DefaultKeep.
	Keep time.Duration
	// KillAfter is the grace between SIGTERM and SIGKILL of the attempt:
	// the fence outlasts the lock by it.
	KillAfter time.Duration
	// Lease, when set, is told the time (this process's clock) by which
	// the lock will have expired on the server, after the lock is taken
	// and after each renewal; the zero time when it is released. The
	// attempt's processes must be gone by then (command.FenceRun).
	Lease func(end time.Time)
}

// Store is a sequence held by this invocation: a durable.Store.
type Store struct {
	c      *redis.Client
	key    *Key
	state  string // the hash
	lock   string // the lock's key
	fence  string // the fence's key
	lease  func(end time.Time)
	value  string // the lock's value: ours
	keep   time.Duration
	fields map[string]string // as read when locked
	exists bool
	stop   func() // stops the renewal
	closed bool
}

var _ durable.Store = (*Store)(nil)

// timeout bounds one script: the client's own timeouts (redis.Timeout)
// bound each read and write already.
const timeout = 10 * time.Second

// Lock takes the lock of the sequence at k, without waiting: durable.ErrBusy when
// another invocation holds it, an *UnreachableError when the store cannot
// be reached. The sequence is read in the same script.
func Lock(k *Key, o Options) (*Store, error) {
	c := redis.Dial(k.Store)
	state, lock, fence := keys(k)
	s := &Store{c: c, key: k, state: state, lock: lock, fence: fence, keep: o.Keep, stop: func() {}, lease: o.Lease}
	if s.keep <= 0 {
		s.keep = DefaultKeep
	}
	if s.lease == nil {
		s.lease = func(time.Time) {}
	}
	ttl, renew := o.TTL, false
	if ttl <= 0 {
		ttl, renew = o.Renewed, true
		if ttl <= 0 {
			ttl = DefaultLockTTL
		}
	}
	fenceTTL := ttl + max(o.KillAfter, 0) + fenceMargin
	me := self()
	s.value = me.value(token())
	sent := time.Now()
	t, err := s.take(ttl, fenceTTL, "")
	if err == nil && t.held != "" {
		// A lock (or fence) left by a process that died on this machine
		// is taken over: the lock of a file would have died with it, and
		// the supervisor of the dead holder ends what its attempt left.
		if h, ok := parseHolder(t.held); ok && h.diedHere(me) {
			t, err = s.take(ttl, fenceTTL, t.held)
		}
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	if t.held != "" {
		c.Close()
		if t.fenced {
			return nil, &FencedError{Left: t.left}
		}
		return nil, durable.ErrBusy
	}
	s.lease(sent.Add(ttl))
	s.fields, s.exists = t.fields, len(t.fields) > 0
	if renew {
		s.renew(ttl, fenceTTL)
	}
	return s, nil
}

// taken is what the lock script found.
type taken struct {
	held   string            // the holder's value: the lock's, or the fence's; "" when taken
	fenced bool              // the lock is free, the fence another's
	left   time.Duration     // the fence's time left
	fields map[string]string // the sequence, when taken
}

// token is 128 random bits: the lock is ours only while it holds them.
func token() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// take runs the lock script: it takes the lock (and the fence) when it is
// free or holds old, and returns the sequence's fields; otherwise it
// returns the lock's holder, or the fence's.
func (s *Store) take(ttl, fenceTTL time.Duration, old string) (taken, error) {
	v, err := s.run(lockScript.Get(), s.value, ttl.Milliseconds(), old, fenceTTL.Milliseconds())
	if err != nil {
		return taken{}, err
	}
	r, ok := v.([]any)
	if !ok || len(r) < 2 {
		return taken{}, s.c.Redact(fmt.Errorf("unexpected reply %v", v))
	}
	switch n, _ := r[0].(int64); n {
	case 0:
		h, _ := r[1].(string)
		return taken{held: h}, nil
	case 2:
		h, _ := r[1].(string)
		var ms int64
		if len(r) > 2 {
			ms, _ = r[2].(int64)
		}
		return taken{held: h, fenced: true, left: time.Duration(max(ms, 0)) * time.Millisecond}, nil
	}
	list, _ := r[1].([]any)
	fields := make(map[string]string, len(list)/2)
	for i := 0; i+1 < len(list); i += 2 {
		k, _ := list[i].(string)
		v, _ := list[i+1].(string)
		fields[k] = v
	}
	return taken{fields: fields}, nil
}

// run runs a script on the sequence's keys (the lock, the hash).
func (s *Store) run(sc *goredis.Script, args ...any) (any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	v, err := s.c.Run(ctx, sc, []string{s.lock, s.state, s.fence}, args...)
	if err != nil {
		return nil, classify(s.c, err)
	}
	return v, nil
}

// classify makes a failed call an *UnreachableError, unless the server
// answered with an error of its own that another try will not change (a
// wrong password, a key of another type), or the TLS handshake refused a
// certificate (redis.CertError): that is returned as it is. The
// caller names the store; the error says what happened, without the
// password.
func classify(c *redis.Client, err error) error {
	bare := errors.New(strings.TrimPrefix(c.Redact(err).Error(), c.URL().String()+": "))
	var ce *redis.CertError
	if errors.As(err, &ce) {
		return bare // a certificate refused: a configuration to fix
	}
	var re goredis.Error
	if errors.As(err, &re) {
		transient := false
		for _, p := range []string{"LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN", "READONLY"} {
			transient = transient || strings.HasPrefix(re.Error(), p)
		}
		if !transient {
			return bare
		}
	}
	return &UnreachableError{bare}
}

// renew extends the lock (and the fence) every third of ttl until Close,
// and tells the lease's new end. A renewal that fails leaves the lease as
// it was: the attempt ends when it does.
func (s *Store) renew(ttl, fenceTTL time.Duration) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sent := time.Now()
				if v, err := s.run(renewScript.Get(), s.value, ttl.Milliseconds(), fenceTTL.Milliseconds()); err == nil {
					if n, _ := v.(int64); n == 1 {
						s.lease(sent.Add(ttl))
					}
				} // a failure shows at the next write
			}
		}
	}()
	s.stop = sync.OnceFunc(func() { close(done); wg.Wait() })
}

// Read returns the sequence as the lock script read it: nil when there is
// none, or a *durable.CorruptError.
func (s *Store) Read() (*durable.State, error) {
	if !s.exists {
		return nil, nil
	}
	st, err := durable.FromFields(s.fields)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Write replaces the sequence with st in one script, if the lock is still
// ours (*LostError otherwise), and sets the key's expiry.
func (s *Store) Write(st *durable.State) error {
	f, err := durable.Fields(st)
	if err != nil {
		return err
	}
	args := make([]any, 0, 2+2*len(f))
	args = append(args, s.value, s.keep.Milliseconds())
	for k, v := range f {
		args = append(args, k, v)
	}
	v, err := s.run(writeScript.Get(), args...)
	if err != nil {
		return err
	}
	if n, _ := v.(int64); n != 1 {
		return &LostError{s.key.String()}
	}
	s.fields, s.exists = f, true
	s.replicated()
	return nil
}

// Remove deletes the sequence and releases the lock, in one script, if the
// lock is still ours (*LostError otherwise).
func (s *Store) Remove() error {
	s.stop()
	v, err := s.run(removeScript.Get(), s.value)
	if err != nil {
		return err
	}
	if n, _ := v.(int64); n != 1 {
		return &LostError{s.key.String()}
	}
	s.closed, s.exists = true, false
	s.lease(time.Time{})
	s.replicated()
	return nil
}

// replicated waits until a replica has the write, on a cluster or through
// Sentinel, so that a failover of the primary does not lose it.
func (s *Store) replicated() {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s.c.Replicated(ctx, s.state)
}

// Exists reports whether there was a sequence when locked, or one was
// written since.
func (s *Store) Exists() bool { return s.exists }

// Close releases the lock (if it is still ours) and the connection.
func (s *Store) Close() error {
	s.stop()
	var err error
	if !s.closed {
		s.closed = true
		_, err = s.run(releaseScript.Get(), s.value)
	}
	s.lease(time.Time{})
	s.c.Close()
	return err
}

// Info is a sequence as retry state show finds it, without the lock.
type Info struct {
	State *durable.State // nil: none
	// Held: an invocation holds the lock (an attempt runs, or is about
	// to), or its fence (its lock expired during the attempt, which may
	// still run); not one whose holder died on this machine.
	Held bool
	// TTL is how long the key lives without another write (0: no expiry).
	TTL time.Duration
}

// Read reads the sequence at k without taking its lock (retry state show):
// every write is one script, so it sees one whole state.
func Read(k *Key) (Info, error) {
	c := redis.Dial(k.Store)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	stateKey, lockKey, fenceKey := keys(k)
	v, err := c.Run(ctx, showScript.Get(), []string{lockKey, stateKey, fenceKey})
	if err != nil {
		return Info{}, classify(c, err)
	}
	r, ok := v.([]any)
	if !ok || len(r) != 4 {
		return Info{}, c.Redact(fmt.Errorf("unexpected reply %v", v))
	}
	// Held: the lock, or else the fence of a holder whose lock expired
	// during its attempt (it may still run), unless its process died here.
	lock, _ := r[0].(string)
	if lock == "" {
		lock, _ = r[3].(string)
	}
	held := lock != ""
	if h, ok := parseHolder(lock); ok && h.diedHere(self()) {
		held = false
	}
	ms, _ := r[1].(int64)
	list, _ := r[2].([]any)
	fields := make(map[string]string, len(list)/2)
	for i := 0; i+1 < len(list); i += 2 {
		k, _ := list[i].(string)
		v, _ := list[i+1].(string)
		fields[k] = v
	}
	st, err := durable.FromFields(fields)
	if err != nil {
		return Info{}, err
	}
	return Info{State: st, Held: held, TTL: time.Duration(max(ms, 0)) * time.Millisecond}, nil
}
