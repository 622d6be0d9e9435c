package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/bucket/redis"
)

// budget is the retry budget of a run: the token bucket and the adaptive
// limiter, and what to close at the end.
type budget struct {
	bucket  bucket.Bucket
	limiter bucket.Limiter
	close   func()
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
	if o.ScopeStore != "" {
		u, err := parseScopeStore(o.ScopeStore)
		if err != nil {
			return nil, usageError("%s: %v", o.flagName("scope-store"), err)
		}
		storeURL = u
	}
	if o.given("scope") {
		if err := scopeNameError(o.flagName("scope"), o.Scope); err != nil {
			return nil, err
		}
	}
	if o.Mode == "off" {
		if o.Scope != "" {
			return nil, usageError("--scope: a scope shares a token bucket; it needs --mode standard or adaptive")
		}
		return b, nil
	}
	if o.Scope == "" {
		if o.Mode == "adaptive" {
			b.limiter = bucket.NewAdaptive(bucket.AdaptiveOptions{})
		}
		return b, nil
	}
	// A run that waits for the refill spends only the top of the bucket
	// (bucket.WaitWindow), so a fleet waiting together paces its retries
	// by its successes and the refill instead of spending the whole
	// bucket at once.
	reserve := 0
	if o.WhenEmpty == "wait" {
		reserve = bucket.WaitReserve(bucket.DefaultCapacity)
	}
	var store bucket.Store
	where := ""
	if storeURL != nil {
		c := redis.Dial(storeURL)
		s, err := c.Scope(o.Scope, 0)
		if err != nil {
			c.Close()
			return nil, usageError("--scope: %v", err)
		}
		s.SetReserve(reserve)
		store, where, b.close = s, storeURL.String(), func() { c.Close() }
	} else {
		dir, err := stateDir()
		if err != nil {
			return nil, usageError("--scope: %v", err)
		}
		s, err := bucket.OpenScope(dir, o.Scope, bucket.ScopeOptions{Reserve: reserve})
		if err != nil {
			return nil, usageError("--scope %s: %v", o.Scope, err)
		}
		store, where = s, s.Path()
	}
	shared := bucket.NewShared(store, bucket.SharedOptions{Reserve: reserve, OnError: func(err error) {
		warn("warning: --scope %s: the scope store failed (%v); this run goes on with a per-process bucket", o.Scope, redactStoreError(err, where))
	}})
	b.bucket = shared
	if o.Mode == "adaptive" {
		b.limiter = shared
	}
	return b, nil
}

// scopeNameError is the usage error of a name that cannot name a scope.
func scopeNameError(what, name string) error {
	if bucket.CheckName(name) == nil {
		return nil
	}
	if name == "" {
		return usageError("%s: empty scope name; want a NAME other than . and .., without '/', '\\', NUL or control characters", what)
	}
	return usageError("%s: %q: a scope NAME cannot be . or .., nor hold '/', '\\', NUL or control characters (a newline)", what, name)
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

// parseScopeStore parses --scope-store: a redis:// or rediss:// URL.
func parseScopeStore(s string) (*redis.URL, error) {
	if !strings.Contains(s, "://") {
		return nil, fmt.Errorf("%q: want redis://[USER:PASSWORD@]HOST[:PORT][/DB] or rediss://… (without it, scopes live in the state directory)", s)
	}
	return redis.ParseURL(s)
}

// flagName names a flag in a message: --flag, or RETRY_FLAG when the value
// came from the environment.
func (o *Options) flagName(name string) string {
	if o.fromEnv[name] {
		return "RETRY_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + " (--" + name + ")"
	}
	return "--" + name
}

// stateDir is where scopes keep their state: $RETRY_STATE_DIR, else
// $XDG_STATE_HOME/retry, else ~/.local/state/retry.
func stateDir() (string, error) {
	if d := os.Getenv("RETRY_STATE_DIR"); d != "" {
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

// scopeOptions are the options of `retry scope …`.
type scopeOptions struct {
	io    *IOStreams
	store string
	json  bool
}

// NewCmdScope builds `retry scope list | show NAME | reset NAME`.
func NewCmdScope(io *IOStreams) *cobra.Command {
	o := &scopeOptions{io: io}
	c := &cobra.Command{
		Use:   "scope",
		Short: "List, show and reset the retry budgets shared with --scope",
		Long: `List, show and reset scopes: the token buckets (and adaptive rate limiters)
that every retry naming the same --scope shares. They live in the state
directory ($RETRY_STATE_DIR, else $XDG_STATE_HOME/retry, else
~/.local/state/retry) or, with --scope-store redis://…, in Redis.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.PersistentFlags().StringVar(&o.store, "scope-store", "", "where scopes live: redis://[USER:PASSWORD@]HOST[:PORT][/DB] or rediss://… (default: the state directory)")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the scopes of the store",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, args []string) error { return o.run(c, "list", "") },
	}
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a scope: tokens, capacity, adaptive rate, last update",
		Args:  exactArgs(1, "show NAME"),
		RunE:  func(c *cobra.Command, args []string) error { return o.run(c, "show", args[0]) },
	}
	show.Flags().BoolVar(&o.json, "json", false, "print the scope as one JSON object")
	reset := &cobra.Command{
		Use:   "reset NAME",
		Short: "Forget a scope's state: a full bucket, no pacing",
		Args:  exactArgs(1, "reset NAME"),
		RunE:  func(c *cobra.Command, args []string) error { return o.run(c, "reset", args[0]) },
	}
	c.AddCommand(list, show, reset)
	return c
}

func exactArgs(n int, usage string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("scope %s: want exactly %d argument (got %d)", usage, n, len(args))
		}
		return nil
	}
}

// run runs `retry scope VERB [NAME]`.
func (o *scopeOptions) run(c *cobra.Command, verb, name string) error {
	fromEnv := false
	if !c.Flags().Changed("scope-store") {
		if v := o.io.getenv("RETRY_SCOPE_STORE"); v != "" {
			o.store, fromEnv = v, true
		}
	}
	flag := "--scope-store"
	if fromEnv {
		flag = "RETRY_SCOPE_STORE (--scope-store)"
	}
	if verb != "list" {
		if err := scopeNameError("scope "+verb, name); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var (
		names []string
		info  bucket.ScopeInfo
		where string
		err   error
	)
	if o.store != "" {
		u, perr := parseScopeStore(o.store)
		if perr != nil {
			return usageError("%s: %v", flag, perr)
		}
		where = u.String()
		client := redis.Dial(u)
		defer client.Close()
		switch verb {
		case "list":
			names, err = client.List(ctx)
		case "show":
			var s *redis.Scope
			if s, err = client.Scope(name, 0); err == nil {
				info, err = s.Info(ctx)
			}
		case "reset":
			err = client.Reset(ctx, name)
		}
	} else {
		dir, derr := stateDir()
		if derr != nil {
			return &exitError{code: exitFailure, msg: fmt.Sprintf("scope %s: %v", verb, derr)}
		}
		where = dir
		switch verb {
		case "list":
			names, err = bucket.ListScopes(dir)
		case "show":
			info, err = bucket.ReadScope(dir, name, bucket.ScopeOptions{})
		case "reset":
			err = bucket.ResetScope(dir, name)
		}
	}
	if err != nil {
		if errors.Is(err, bucket.ErrUntrusted) {
			return usageError("scope %s: %v", verb, err)
		}
		return &exitError{code: exitFailure, msg: fmt.Sprintf("scope %s: %v", verb, err)}
	}
	out := o.io.Out
	switch verb {
	case "list":
		for _, n := range names {
			fmt.Fprintln(out, n)
		}
	case "show":
		if o.json {
			b, _ := json.Marshal(struct {
				Store string `json:"store"`
				bucket.ScopeInfo
			}{where, info})
			fmt.Fprintf(out, "%s\n", b)
			return nil
		}
		fmt.Fprintf(out, "scope:    %s\nstore:    %s\ntokens:   %d of %d\n", info.Name, where, info.Tokens, info.Capacity)
		switch a := info.Adaptive; {
		case a == nil:
			fmt.Fprintln(out, "adaptive: not used")
		case !a.Enabled:
			fmt.Fprintf(out, "adaptive: not pacing (no throttling seen), measured %.2f/s\n", a.MeasuredRate)
		default:
			fmt.Fprintf(out, "adaptive: pacing at %.2f/s, max rate %.2f/s, measured %.2f/s, last throttle %s\n",
				a.FillRate, a.MaxRate, a.MeasuredRate, a.LastThrottle.UTC().Format(time.RFC3339))
		}
		if !info.Updated.IsZero() {
			fmt.Fprintf(out, "updated:  %s\n", info.Updated.UTC().Format(time.RFC3339))
		}
	case "reset":
		fmt.Fprintf(o.io.ErrOut, "retry: scope %s reset in %s\n", name, where)
	}
	return nil
}
