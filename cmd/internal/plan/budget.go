package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/bucket/file"
	"github.com/retry-dev/retry/bucket/redis"
	"github.com/retry-dev/retry/cmd/internal/exit"
)

// budget is the retry budget of a run: the token bucket and the adaptive
// limiter, and what to close at the end.
type budget struct {
	bucket  bucket.Bucket
	limiter bucket.Limiter
	close   func()
	// warning: the store's password is in argv ("" when not).
	warning string
	file    string // the --scope's bucket file in the state directory; "" for none
}

// bucket builds the retry token bucket and the adaptive rate limiter.
// Without --scope there is no bucket (-n and --schedule are exact) and
// adaptive mode is a per-process limiter; with --scope both live in the
// scope's store (a file under the state directory, or Redis), shared by
// every retry naming the scope. warn reports, once, a store that fails
// during the run: the run then goes on with a per-process bucket.
func (o *Options) bucket(warn func(format string, args ...any)) (*budget, error) {
	b := &budget{bucket: bucket.NoOp{}, close: func() {}}
	var storeURL *redis.URL
	if o.Retry.Store != "" {
		u, err := ParseScopeStore(o.Retry.Store, o.IO.Env)
		if err != nil {
			return nil, exit.Usagef("%s: %v", o.flagName("scope-store"), err)
		}
		storeURL = u
		if !o.fromEnv["scope-store"] {
			b.warning = u.ArgvWarning("--scope-store")
		}
	}
	if o.Given("scope") {
		if err := ScopeNameError(o.flagName("scope"), o.Retry.Scope); err != nil {
			return nil, err
		}
	}
	if o.Retry.Mode == "off" {
		if o.Retry.Scope != "" {
			return nil, exit.Usagef("--scope: a scope shares a token bucket; it needs --mode standard or adaptive")
		}
		return b, nil
	}
	now, sleep := o.IO.BudgetNow(), o.IO.BudgetSleep() // nil: the real clock
	if o.Retry.Scope == "" {
		if o.Retry.Mode == "adaptive" {
			b.limiter = bucket.NewAdaptive(bucket.AdaptiveOptions{Now: now, Sleep: sleep})
		}
		return b, nil
	}
	// A run that waits for the refill spends only the top of the bucket
	// (bucket.WaitWindow), so a fleet waiting together paces its retries
	// by its successes and the refill instead of spending the whole
	// bucket at once.
	reserve := 0
	if o.Retry.WhenEmpty == "wait" {
		reserve = bucket.WaitReserve(bucket.DefaultCapacity)
	}
	var store bucket.Store
	where := ""
	if storeURL != nil {
		c := redis.Dial(storeURL)
		s, err := c.Scope(o.Retry.Scope, 0)
		if err != nil {
			c.Close()
			return nil, exit.Usagef("--scope: %v", err)
		}
		s.SetReserve(reserve)
		if now != nil {
			s.SetClock(now)
		}
		store, where, b.close = s, storeURL.String(), func() { c.Close() }
	} else {
		dir, err := StateDir()
		if err != nil {
			return nil, exit.Usagef("--scope: %v", err)
		}
		s, err := file.OpenScope(dir, o.Retry.Scope, file.ScopeOptions{Reserve: reserve, Now: now})
		if err != nil {
			return nil, exit.Usagef("--scope %s: %v", o.Retry.Scope, err)
		}
		store, where, b.file = s, s.Path(), s.Path()
	}
	shared := bucket.NewShared(store, bucket.SharedOptions{Reserve: reserve, Now: now, Sleep: sleep, OnError: func(err error) {
		warn("warning: --scope %s: the scope store failed (%v); this run goes on with a per-process bucket", o.Retry.Scope, redactStoreError(err, where))
	}})
	b.bucket = shared
	if o.Retry.Mode == "adaptive" {
		b.limiter = shared
	}
	return b, nil
}

// ScopeNameError is the usage error of a name that cannot name a scope.
func ScopeNameError(what, name string) error {
	if bucket.CheckName(name) == nil {
		return nil
	}
	if name == "" {
		return exit.Usagef("%s: empty scope name; want a NAME other than . and .., without '/', '\\', NUL or control characters", what)
	}
	return exit.Usagef("%s: %q: a scope NAME cannot be . or .., nor hold '/', '\\', NUL or control characters (a newline)", what, name)
}

// redactStoreError makes sure an error names the store by its redacted
// URL (the redis package already removes the password).
func redactStoreError(err error, where string) string {
	msg := err.Error()
	if !strings.Contains(msg, where) {
		msg = where + ": " + msg
	}
	return msg
}

// ParseScopeStore parses --scope-store: a redis:// or rediss:// URL,
// configured by the RETRY_REDIS_ variables of getenv (redis.URL.Configure).
func ParseScopeStore(s string, getenv func(string) string) (*redis.URL, error) {
	if !strings.Contains(s, "://") {
		return nil, fmt.Errorf("%q: want %s (without it, scopes live in the state directory)", s, redis.Forms)
	}
	u, err := redis.ParseURL(s)
	if err != nil {
		return nil, err
	}
	return u, u.Configure(getenv)
}

// flagName names a flag in a message: --flag, or RETRY_FLAG when the value
// came from the environment.
func (o *Options) flagName(name string) string {
	if o.fromEnv[name] {
		return "RETRY_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + " (--" + name + ")"
	}
	return "--" + name
}

// StateDir is where scopes keep their state: $RETRY_STATE_DIR, else
// $XDG_STATE_HOME/retry, else ~/.local/state/retry; on Windows
// $RETRY_STATE_DIR, else %LOCALAPPDATA%\retry (defaultStateDir).
func StateDir() (string, error) {
	if d := os.Getenv("RETRY_STATE_DIR"); d != "" {
		return d, nil
	}
	if d, ok := defaultStateDir(); ok {
		return d, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "retry"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: set RETRY_STATE_DIR")
	}
	return filepath.Join(home, ".local", "state", "retry"), nil
}
