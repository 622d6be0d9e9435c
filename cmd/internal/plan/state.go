package plan

import (
	"strings"
	"time"

	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/runner/durable/redisstore"
)

// StateStore is where --state keeps the sequence: a file, or a key of a
// Redis server (redis://…/KEY).
type StateStore struct {
	// Name is what logs, the report and messages show: the file's path,
	// or the key's URL with its password replaced by xxxxx.
	Name string
	// Key is the Redis key; nil for a file.
	Key *redisstore.Key
	// Warning says that the key's password is in argv ("" when not).
	Warning string
	// Identity ties the sequence to the command line (identity): another
	// one starts a new sequence.
	Identity string
	// lockTTL is the expiry of a Redis key's lock (lockTTL).
	LockTTL time.Duration
	// KillAfter is --kill-after: the fence of a Redis key's lock outlasts
	// the lock by it.
	KillAfter time.Duration
	// Lease is the renewed lock of an attempt without a bound
	// (RETRY_REDIS_LEASE; 0: redisstore.DefaultLockTTL).
	Lease time.Duration
}

// stateStore parses --state: a value with "://" is a Redis URL, read as
// --scope-store reads its URL, the key last; anything else a file.
func (o *Options) stateStore() (*StateStore, error) {
	s := o.Budget.State
	if s == "" {
		return nil, nil
	}
	if !strings.Contains(s, "://") {
		return &StateStore{Name: s}, nil
	}
	k, err := redisstore.ParseKey(s)
	if err == nil {
		err = k.Store.Configure(o.IO.Env)
	}
	if err != nil {
		return nil, exit.Usagef("%s: %v", o.flagName("state"), err)
	}
	st := &StateStore{Name: k.String(), Key: k}
	if v := o.IO.Env(LeaseEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 100*time.Millisecond {
			return nil, exit.Usagef("%s: %q: want a duration of 100ms or more (1m, 30s) for the lease of an attempt without a bound", LeaseEnv, v)
		}
		st.Lease = d
	}
	if !o.fromEnv["state"] {
		st.Warning = k.Store.ArgvWarning("--state")
	}
	return st, nil
}

// LeaseEnv names the lease of a Redis state lock whose attempt has no
// bound (no --attempt-timeout, no --max-time): renewed every third of it,
// and the attempt ended when it cannot be renewed before it runs out.
const LeaseEnv = "RETRY_REDIS_LEASE"

// lockMargin is what a Redis state lock outlasts the attempt by: the
// store's calls before and after it, and writing the final output.
const lockMargin = 30 * time.Second

// lockTTL is the expiry of a Redis state lock: the longest the attempt can
// last (--attempt-timeout, else the time budget) plus --kill-after and
// lockMargin; 0 when the attempt has no bound (redisstore then renews a
// short lock while the invocation runs).
func lockTTL(o *Options, p *Plan) time.Duration {
	bound := o.Budget.AttemptTimeout
	if bound <= 0 || (p.MaxTime > 0 && p.MaxTime < bound) {
		bound = p.MaxTime
	}
	if bound <= 0 {
		return 0
	}
	return bound + o.Process.KillAfter + lockMargin
}
