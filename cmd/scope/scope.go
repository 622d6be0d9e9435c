// Package scope is `retry scope list | show NAME | reset NAME`: the retry
// budgets that runs naming the same --scope share.
package scope

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/bucket/file"
	"github.com/retry-dev/retry/bucket/redis"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/spf13/cobra"
)

// scopeOptions are the options of `retry scope …`.
type scopeOptions struct {
	io    *iostreams.IOStreams
	store string
	json  bool
}

// NewCmd builds `retry scope list | show NAME | reset NAME`.
func NewCmd(io *iostreams.IOStreams) *cobra.Command {
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
	c.PersistentFlags().StringVar(&o.store, "scope-store", "", "where scopes live: redis://[USER@]HOST[:PORT][/DB], redis+cluster://HOST:PORT,… or redis+sentinel://HOST:PORT,…/MASTER[/DB] (rediss… with TLS; the password, CA and client certificate in RETRY_REDIS_PASSWORD_FILE, RETRY_REDIS_CACERT…; default: the state directory)")
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
			return exit.Usagef("scope %s: want exactly %d argument (got %d)", usage, n, len(args))
		}
		return nil
	}
}

// run runs `retry scope VERB [NAME]`.
func (o *scopeOptions) run(c *cobra.Command, verb, name string) error {
	fromEnv := false
	if !c.Flags().Changed("scope-store") {
		if v := o.io.Env("RETRY_SCOPE_STORE"); v != "" {
			o.store, fromEnv = v, true
		}
	}
	flag := "--scope-store"
	if fromEnv {
		flag = "RETRY_SCOPE_STORE (--scope-store)"
	}
	if verb != "list" {
		if err := plan.ScopeNameError("scope "+verb, name); err != nil {
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
		u, perr := plan.ParseScopeStore(o.store, o.io.Env)
		if perr != nil {
			return exit.Usagef("%s: %v", flag, perr)
		}
		if w := u.ArgvWarning(flag); w != "" && !fromEnv {
			fmt.Fprintf(o.io.ErrOut, "retry: %s\n", w)
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
				if now := o.io.BudgetNow(); now != nil {
					s.SetClock(now)
				}
				info, err = s.Info(ctx)
			}
		case "reset":
			err = client.Reset(ctx, name)
		}
	} else {
		dir, derr := plan.StateDir()
		if derr != nil {
			return &exit.Error{Code: exit.Failure, Msg: fmt.Sprintf("scope %s: %v", verb, derr)}
		}
		where = dir
		switch verb {
		case "list":
			names, err = file.ListScopes(dir)
		case "show":
			info, err = file.ReadScope(dir, name, file.ScopeOptions{Now: o.io.BudgetNow()})
		case "reset":
			err = file.ResetScope(dir, name)
		}
	}
	if verb == "reset" && errors.Is(err, bucket.ErrNoScope) {
		// Resetting what is already reset succeeds, as rm -f does: a
		// runbook's clean-up step does not fail on a fresh machine.
		fmt.Fprintf(o.io.ErrOut, "retry: scope %s is already reset: it does not exist in %s\n", name, where)
		return nil
	}
	if err != nil {
		if errors.Is(err, file.ErrUntrusted) {
			return exit.Usagef("scope %s: %v", verb, err)
		}
		return &exit.Error{Code: exit.Failure, Msg: fmt.Sprintf("scope %s: %v", verb, err)}
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
