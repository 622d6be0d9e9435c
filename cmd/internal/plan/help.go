package plan

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/sources"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagGroup is one topic of run's and wait's help.
type flagGroup struct {
	title string
	flags []string
}

// flagGroups returns the one table of the topic of every flag of run and
// wait, in the order help shows them. Every registered flag must be in
// exactly one group (TestEveryFlagHasAGroup); a name that neither command
// registers (a flag of the other command, or one not built yet) is skipped.
// Only help reads it: it is built on first use, not by the package's init
// at every start.
func flagGroups() []flagGroup {
	flagGroupsOnce.Do(func() {
		flagGroupsTable = []flagGroup{
			{"Budget", []string{"attempts", "max-time", "attempt-timeout", "consecutive", "state"}},
			{"Delay", []string{"backoff", "delay", "max-delay", "throttle-delay", "multiplier", "jitter", "schedule", "max-retry-after"}},
			{"Retry budget and scopes", []string{"mode", "scope", "scope-store", "when-empty"}},
			{"Acceptors", acceptorFlagNames(
				"error-pattern", "input")},
			{"Waiter models", []string{"waiter-file", "waiter", "list-waiters", "watch"}},
			{"Output", []string{"stdout", "query", "output", "quiet", "verbose", "log-format", "log-file", "report", "max-output"}},
			{"Processes", []string{"shell", "shell-path", "foreground", "supervise-early", "kill-after", "on-retry"}},
			sourceGroup(),
			{"CI", []string{"ci", "ci-retry-annotation", "ci-failure-annotation"}},
		}
	})
	return flagGroupsTable
}

var (
	flagGroupsOnce  sync.Once
	flagGroupsTable []flagGroup
)

// sourceGroup is the group of the sources a flag chooses (sources.Table):
// "HTTP and TCP", each source's flag and then its own.
func sourceGroup() flagGroup {
	var g flagGroup
	var names []string
	for _, s := range sources.Table {
		if s.Flag != "" {
			names = append(names, s.Name)
			g.flags = append(append(g.flags, s.Flag), s.Flags...)
		}
	}
	g.title = names[len(names)-1]
	if len(names) > 1 { // "HTTP and TCP"; with a third, "HTTP, TCP and gRPC"
		g.title = strings.Join(names[:len(names)-1], ", ") + " and " + g.title
	}
	return g
}

// acceptorFlagNames lists the acceptor flags (--success-exit …) in the
// order they are registered, then more.
func acceptorFlagNames(more ...string) []string {
	var names []string
	for _, k := range acceptorKinds() {
		for _, st := range k.states {
			names = append(names, st.String()+k.suffix)
		}
	}
	return append(names, more...)
}

// groupOf returns the title of the group that holds flag name, or "".
func groupOf(name string) string {
	for _, g := range flagGroups() {
		for _, f := range g.flags {
			if f == name {
				return g.title
			}
		}
	}
	return ""
}

// SetGroupedHelp gives c (run or wait) help grouped by topic: the
// description, usage and examples first, then each group's flags with
// their defaults, and the exit status table last.
func SetGroupedHelp(c *cobra.Command) {
	c.SetHelpFunc(func(c *cobra.Command, _ []string) {
		writeGroupedHelp(c.OutOrStdout(), c)
	})
	c.SetUsageFunc(func(c *cobra.Command) error {
		writeGroupedHelp(c.OutOrStderr(), c)
		return nil
	})
}

func writeGroupedHelp(w io.Writer, c *cobra.Command) {
	var b strings.Builder
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	b.WriteString(strings.TrimSpace(desc) + "\n\n")
	fmt.Fprintf(&b, "Usage:\n  %s\n\n", c.UseLine())
	if c.Example != "" {
		fmt.Fprintf(&b, "Examples:\n%s\n\n", strings.TrimRight(c.Example, "\n"))
	}
	fs := c.Flags()
	for _, g := range flagGroups() {
		if g.title == "Acceptors" {
			b.WriteString(acceptorHelp(fs))
			continue
		}
		if s := groupUsages(fs, g.flags); s != "" {
			fmt.Fprintf(&b, "%s:\n%s\n", g.title, s)
		}
	}
	// Flags outside the table (only help) come last.
	var rest []string
	fs.VisitAll(func(f *pflag.Flag) {
		if groupOf(f.Name) == "" {
			rest = append(rest, f.Name)
		}
	})
	if s := groupUsages(fs, rest); s != "" {
		fmt.Fprintf(&b, "Other:\n%s\n", s)
	}
	if !strings.Contains(desc, "RETRY_<FLAG>") {
		b.WriteString("Every flag has an environment default RETRY_<FLAG> (RETRY_ATTEMPTS=5); flags win.\n")
	}
	b.WriteString(exit.Help[1:])
	// Cobra's help function returns no error: a help that cannot be
	// written (a closed stdout) has nowhere else to go.
	_, _ = io.WriteString(w, string(echo.Raw(WrapHelp(b.String(), HelpWidth(w))))) // retry's own text
}

// groupUsages formats the flags of fs named in names, in that order.
func groupUsages(fs *pflag.FlagSet, names []string) string {
	sub := pflag.NewFlagSet("group", pflag.ContinueOnError)
	sub.SortFlags = false
	for _, n := range names {
		if f := fs.Lookup(n); f != nil && !f.Hidden {
			sub.AddFlag(f)
		}
	}
	if !sub.HasFlags() {
		return ""
	}
	return sub.FlagUsages()
}

// acceptorHelp shows the acceptor flags as families, one line per kind
// (--STATE-exit CODES …) rather than one per flag, then the other flags of
// the group.
func acceptorHelp(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString("Acceptors (each repeatable; in command-line order, the first that matches decides):\n")
	b.WriteString("  STATE is success, failure, retry or throttle (JMESPath: success, failure or retry)\n")
	b.WriteString("  Repeated acceptors are alternatives, not conditions that must all hold: to require\n")
	b.WriteString("  several, join them in one expression (--success 'replicas == `3` && ready')\n")
	b.WriteString("  EXPR=VALUE splits at the last = outside a literal and not part of ==, !=, <=\n")
	b.WriteString("  or >=: --success 'a == b=true' compares a == b with true, and '@=' compares\n")
	b.WriteString("  the whole document with the empty string\n")
	var rest []string
	seen := map[string]bool{}
	for _, k := range acceptorKinds() {
		if fs.Lookup(k.states[0].String()+k.suffix) == nil {
			continue
		}
		left := "--STATE" + k.suffix + " " + k.arg
		fmt.Fprintf(&b, "      %-26s%s\n", left, k.help)
		for _, st := range k.states {
			seen[st.String()+k.suffix] = true
		}
	}
	for _, g := range flagGroups() {
		if g.title != "Acceptors" {
			continue
		}
		for _, f := range g.flags {
			if !seen[f] {
				rest = append(rest, f)
			}
		}
	}
	b.WriteString(groupUsages(fs, rest))
	b.WriteString("\n")
	return b.String()
}
