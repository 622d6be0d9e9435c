// Package state is `retry state show|reset FILE|URL`: where a durable retry
// sequence (--state FILE, or --state redis://…/KEY) stands, and starting it
// over.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/human"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/runner/durable"
	"github.com/retry-dev/retry/runner/durable/redisstore"
)

// NewCmd builds `retry state show|reset FILE`.
func NewCmd(io *iostreams.IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "state",
		Short: "Show or reset a durable retry sequence (--state FILE|URL)",
		Long: `A retry sequence kept with --state FILE (or --state redis://…/KEY) survives
the process that made it: a cron job that calls retry again continues it.
retry state show prints where it stands; retry state reset removes it, so the
next invocation starts over.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return exit.Usagef("state: give a subcommand: show FILE|URL [--json] or reset FILE|URL [--force]")
		},
	}
	c.AddCommand(newCmdStateShow(io), newCmdStateReset(io))
	return c
}

func newCmdStateShow(io *iostreams.IOStreams) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "show FILE|URL",
		Short: "Print a sequence's status, attempts, next due time, delay and history",
		Long: `Print a durable sequence: its status (pending, due, running, given up, failed),
the attempts made and left, when the next one is due, the current delay, the
last exit status and reason, and the history of attempts (start, duration,
status, directive). --json prints one JSON object. No sequence: status none.
A redis://[USER:PASSWORD@]HOST[:PORT][/DB]/KEY names a Redis key, as --state
does.`,
		Args: exactFile("show"),
		RunE: func(c *cobra.Command, args []string) error {
			return stateShow(io, args[0], asJSON, time.Now())
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return c
}

func newCmdStateReset(io *iostreams.IOStreams) *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "reset FILE|URL",
		Short: "Remove a sequence, so that the next invocation starts a new one",
		Long: `Remove the durable sequence in FILE (or the Redis key of a redis://…/KEY),
whatever its status, so that the next invocation of retry --state starts a new
sequence. It takes the sequence's lock: while an attempt runs it exits 75,
"busy", and removes nothing. What is not a retry state is refused (125) and
left as it is; --force removes it anyway (a state file that got corrupt).`,
		Args: exactFile("reset"),
		RunE: func(c *cobra.Command, args []string) error {
			return stateReset(io, args[0], force)
		},
	}
	c.Flags().BoolVar(&force, "force", false, "remove what is there even if it is not a retry state")
	return c
}

func exactFile(sub string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != 1 {
			return exit.Usagef("state %s: give one state FILE or redis://…/KEY (got %d arguments)", sub, len(args))
		}
		return nil
	}
}

// target is what retry state names: a file, or a Redis key.
type target struct {
	arg   string
	name  string // the path, or the URL without its password
	label string // "file" or "key"
	key   *redisstore.Key
}

// parseTarget parses a FILE or a Redis URL, configured by the RETRY_REDIS_
// variables; a URL's password in argv is warned about.
func parseTarget(io *iostreams.IOStreams, arg string) (*target, error) {
	if !strings.Contains(arg, "://") {
		return &target{arg: arg, name: arg, label: "file"}, nil
	}
	k, err := redisstore.ParseKey(arg)
	if err == nil {
		err = k.Store.Configure(io.Env)
	}
	if err != nil {
		return nil, exit.Usagef("%v", err)
	}
	if w := k.Store.ArgvWarning("retry state"); w != "" {
		fmt.Fprint(io.ErrOut, echo.Sprintf("retry: %s\n", w))
	}
	return &target{arg: arg, name: k.String(), label: "key", key: k}, nil
}

// read reads the sequence without its lock, and says whether an attempt
// runs: for a file, whether the process that runs it is alive; for a key,
// whether an invocation holds its lock.
func (t *target) read() (*durable.State, func(pid int) bool, error) {
	if t.key == nil {
		st, err := durable.ReadFile(t.arg)
		return st, processAlive, err
	}
	info, err := redisstore.Read(t.key)
	return info.State, func(int) bool { return info.Held }, err
}

// lock locks the sequence, as an invocation of --state does.
func (t *target) lock() (durable.Store, error) {
	if t.key == nil {
		return durable.Lock(t.arg)
	}
	return redisstore.Lock(t.key, redisstore.Options{})
}

// stateShow prints the sequence at arg as of now.
func stateShow(io *iostreams.IOStreams, arg string, asJSON bool, now time.Time) error {
	t, err := parseTarget(io, arg)
	if err != nil {
		return err
	}
	path := t.name
	st, alive, err := t.read()
	if err != nil {
		return stateFileError(path, err)
	}
	// The sequence's store is named as it is (echo.Raw): a file's path, or
	// a key's URL with its password masked already. Redaction would read
	// "key: URL" as a secret pair and hide it.
	if st == nil {
		if asJSON {
			fmt.Fprint(io.Out, echo.Raw(fmt.Sprintf("{%q:%q,\"status\":\"none\"}\n", t.label, path)))
			return nil
		}
		fmt.Fprint(io.Out, echo.Raw(fmt.Sprintf("%-11s%s\nstatus:    none (no sequence: the next invocation starts one)\n", t.label+":", path)))
		return nil
	}
	status := st.Shown(now, alive)
	if asJSON {
		m := showJSON(st, status, now)
		m[t.label] = path
		b, _ := json.MarshalIndent(m, "", "  ") // what attempts said is redacted in showJSON
		fmt.Fprintf(io.Out, "%s\n", echo.Raw(b))
		return nil
	}
	w := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	// What a sequence kept (its command, results, reason) repeats what its
	// attempts said: shown redacted, as the log said it.
	row := func(k, v string) { fmt.Fprint(w, echo.Sprintf("%s:\t%s\n", k, v)) }
	fmt.Fprint(w, echo.Raw(t.label+":\t"+path+"\n"))
	row("command", strings.Join(st.Command, " "))
	row("status", string(status))
	made := fmt.Sprintf("%d made", st.Attempts)
	if left, limited := st.Left(); limited {
		made += fmt.Sprintf(", %d left (of %d)", left, st.MaxAttempts)
	} else {
		made += ", unlimited"
	}
	row("attempts", made)
	if !st.Started.IsZero() {
		row("started", st.Started.UTC().Format(human.StateTime))
	}
	if !st.Deadline.IsZero() {
		row("deadline", st.Deadline.UTC().Format(human.StateTime))
	}
	switch {
	case status.Terminal():
		row("next due", "never: retry state reset "+path+" starts a new sequence")
	case status == durable.Running:
		row("next due", "after the running attempt")
	default:
		row("next due", st.NextDue.UTC().Format(human.StateTime)+" ("+dueIn(st.NextDue, now)+")")
	}
	row("delay", human.Duration(st.Previous()))
	if st.MaxBackoff > 0 {
		row("max delay", human.Duration(time.Duration(st.MaxBackoff)))
	}
	if n := len(st.History); n > 0 {
		row("last", lastStatus(st.History[n-1]))
	}
	if st.Reason != "" && status.Terminal() {
		row("reason", st.Reason)
	}
	if status.Terminal() {
		row("exit status", fmt.Sprint(st.Exit))
	}
	w.Flush()
	if len(st.History) > 0 {
		head := "history:"
		if len(st.History) < st.Attempts {
			head = fmt.Sprintf("history (the last %d of %d attempts):", len(st.History), st.Attempts)
		}
		fmt.Fprintln(io.Out, echo.Untrusted(head))
		w = tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
		for _, e := range st.History {
			line := fmt.Sprintf("  attempt %d\t%s\t%s\t%s\t%s", e.Attempt, e.Start.UTC().Format(human.StateTime), human.Duration(time.Duration(e.Duration)), e.Result, e.Directive)
			if e.Acceptor != "" {
				line += " [" + human.AcceptorLabel(e.Acceptor) + "]"
			}
			if e.Delay > 0 {
				line += "\tnext in " + human.Duration(time.Duration(e.Delay))
			}
			fmt.Fprintln(w, echo.Untrusted(line))
		}
		w.Flush()
	}
	return nil
}

func dueIn(t, now time.Time) string {
	if d := t.Sub(now); d > 0 {
		return "in " + human.Duration(d)
	}
	return "due now"
}

// lastStatus is the last attempt's exit status (or HTTP status) and
// directive: "exit status 1: retry (server-side)".
func lastStatus(e durable.Entry) string {
	s := e.Result + ": " + e.Directive
	if e.Acceptor != "" {
		s += " [" + human.AcceptorLabel(e.Acceptor) + "]"
	}
	return s
}

func showJSON(st *durable.State, status durable.Status, now time.Time) map[string]any {
	m := map[string]any{
		"command":      st.Command,
		"status":       status,
		"attempts":     st.Attempts,
		"max_attempts": st.MaxAttempts,
		"delay_ms":     st.Previous().Milliseconds(),
	}
	if left, limited := st.Left(); limited {
		m["attempts_left"] = left
	} else {
		m["attempts_left"] = nil
	}
	if st.MaxBackoff > 0 {
		m["max_delay_ms"] = time.Duration(st.MaxBackoff).Milliseconds()
	}
	if !st.Started.IsZero() {
		m["started"] = st.Started.UTC().Format(time.RFC3339Nano)
	}
	if !st.Deadline.IsZero() {
		m["deadline"] = st.Deadline.UTC().Format(time.RFC3339Nano)
	}
	if !status.Terminal() && status != durable.Running {
		m["next_due"] = st.NextDue.UTC().Format(time.RFC3339Nano)
		m["due_in_ms"] = max(st.NextDue.Sub(now), 0).Milliseconds()
	}
	if st.Reason != "" {
		m["reason"] = echo.Untrusted(st.Reason).String()
	}
	if status.Terminal() {
		m["exit_status"] = st.Exit
	}
	hist := make([]map[string]any, len(st.History))
	for i, e := range st.History {
		h := map[string]any{
			"attempt":     e.Attempt,
			"start":       e.Start.UTC().Format(time.RFC3339Nano),
			"duration_ms": float64(time.Duration(e.Duration).Microseconds()) / 1000,
			"result":      echo.Untrusted(e.Result).String(),
			"directive":   e.Directive,
			"delay_ms":    time.Duration(e.Delay).Milliseconds(),
		}
		if e.HasExitCode() {
			h["exit_code"] = e.ExitCode
		}
		if e.Status != 0 {
			h["http_status"] = e.Status
		}
		if e.Acceptor != "" {
			h["acceptor"] = echo.Untrusted(e.Acceptor).String()
		}
		hist[i] = h
	}
	m["history"] = hist
	if n := len(st.History); n > 0 {
		last := st.History[n-1]
		m["last"] = echo.Untrusted(lastStatus(last)).String()
		if last.HasExitCode() {
			m["last_exit_code"] = last.ExitCode
		}
		if last.Status != 0 {
			m["last_http_status"] = last.Status
		}
	}
	return m
}

// stateReset removes the sequence at arg under its lock; what is not a
// retry state only with force.
func stateReset(io *iostreams.IOStreams, arg string, force bool) error {
	t, err := parseTarget(io, arg)
	if err != nil {
		return err
	}
	path := t.name
	fl, err := t.lock()
	if err != nil {
		return stateFileError(path, err)
	}
	defer fl.Close()
	if !fl.Exists() {
		fmt.Fprint(io.Out, echo.Raw(path+": no sequence; nothing to reset\n"))
		return nil
	}
	st, err := fl.Read()
	var what string
	switch {
	case err == nil && st != nil:
		what = fmt.Sprintf("%s, %s made", st.Status, human.Plural(st.Attempts, "attempt"))
	case !force && errors.As(err, new(*durable.RefusedError)):
		// Not private: what it holds is not to be trusted, and not read.
		return exit.Usagef("state reset %v; nothing removed: retry state reset --force %s removes it", err, path)
	case !force:
		return exit.Usagef("state reset %s: not a retry state (%v); nothing removed: retry state reset --force %s removes it", path, err, path)
	case errors.As(err, new(*durable.RefusedError)):
		what = fmt.Sprintf("not private: %v", err)
	default:
		what = fmt.Sprintf("not a retry state: %v", err)
	}
	if err := fl.Remove(); err != nil {
		return stateFileError("state reset "+path, err)
	}
	fmt.Fprint(io.Out, echo.Raw(path), echo.Sprintf(": reset (was %s); the next invocation starts a new sequence\n", what))
	return nil
}

// stateFileError maps errors of retry state: busy and an unreachable store
// are 75 (try again); the rest 125.
func stateFileError(path string, err error) error {
	var corrupt *durable.CorruptError
	var refused *durable.RefusedError
	var unreachable *redisstore.UnreachableError
	var fenced *redisstore.FencedError
	switch {
	case errors.Is(err, durable.ErrBusy):
		return &exit.Error{Code: exit.TempFail, Msg: fmt.Sprintf("%s: busy: another retry is making an attempt of this sequence", path)}
	case errors.As(err, &fenced):
		return &exit.Error{Code: exit.TempFail, Msg: fmt.Sprintf("%s: busy: %v", path, err)}
	case errors.As(err, &unreachable):
		return &exit.Error{Code: exit.TempFail, Msg: fmt.Sprintf("%s: %v", path, err)}
	case errors.As(err, &corrupt):
		return exit.Usagef("%s: %v: look at it, then retry state reset %s starts a new sequence", path, err, path)
	case errors.As(err, &refused):
		return exit.Usagef("%v", err)
	}
	return exit.Usagef("%s: %v", path, err)
}
