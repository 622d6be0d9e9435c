// Package completion gives the flags of run and wait shell completions that
// know the domain (cobra's completion command writes the scripts).
package completion

import (
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/acceptor/waiters"
	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/bucket/file"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/cmd/internal/sources"
)

// fileFlag reports whether the flag name's value is a file to complete,
// and the extensions to offer (none: any file): a source's file flags
// (sources.Table: --cacert) and these. A switch, where a map literal would
// be built at every start of retry, completing or not.
func fileFlag(name string) (exts []string, ok bool) {
	switch name {
	case "waiter-file":
		return []string{"json"}, true
	case "report", "state", "log-file":
		return nil, true
	}
	for _, s := range sources.Table {
		if slices.Contains(s.Files, name) {
			return nil, true
		}
	}
	return nil, false
}

// Register gives c's flags completions that know the domain:
// the words of every enum flag, files for file flags, the waiters of the
// --waiter-file on the line for --waiter, the existing scopes for --scope.
// The command itself completes as the shell would (commands and files).
func Register(c *cobra.Command) {
	fs := c.Flags()
	fs.VisitAll(func(f *pflag.Flag) {
		var fn cobra.CompletionFunc
		if words, ok := plan.EnumWords(f); ok {
			fn = func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
				return withPrefix(words, prefix), cobra.ShellCompDirectiveNoFileComp
			}
		}
		if exts, ok := fileFlag(f.Name); ok {
			fn = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				if len(exts) > 0 {
					return exts, cobra.ShellCompDirectiveFilterFileExt
				}
				return nil, cobra.ShellCompDirectiveDefault
			}
		}
		switch f.Name {
		case "backoff":
			fn = completeBackoff
		case "waiter":
			fn = completeWaiter
		case "scope":
			fn = completeScope
		}
		if fn != nil {
			_ = c.RegisterFlagCompletionFunc(f.Name, fn)
		}
	})
	c.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveDefault
	}
}

// completeWaiter offers the names of the waiters in the --waiter-file given
// earlier on the line (or in RETRY_WAITER_FILE); without a file, the
// built-in waiters.
func completeWaiter(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	file := ""
	if f := c.Flags().Lookup("waiter-file"); f != nil {
		file = f.Value.String()
	}
	if file == "" {
		file = os.Getenv("RETRY_WAITER_FILE")
	}
	if file == "" {
		return completeBuiltinWaiter(prefix)
	}
	wf, err := plan.LoadWaiterFile(file)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return withPrefix(wf.Names(), prefix), cobra.ShellCompDirectiveNoFileComp
}

// completeScope offers the scopes that have state on this machine
// (file.ListScopes of the state directory). With --scope-store on the
// line it offers none: TAB never waits on a network store.
func completeScope(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if f := c.Flags().Lookup("scope-store"); f != nil && f.Value.String() != "" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	dir, err := plan.StateDir()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, err := file.ListScopes(dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return withPrefix(names, prefix), cobra.ShellCompDirectiveNoFileComp
}

// completeBuiltinWaiter completes the waiters of the built-in catalog
// (acceptor/waiters) in two steps: SERVICE: first, then SERVICE:Name in
// the model's and the CLI's spelling.
func completeBuiltinWaiter(prefix string) ([]string, cobra.ShellCompDirective) {
	service, _, named := strings.Cut(prefix, ":")
	var words []string
	if !named {
		for _, f := range waiters.Builtin {
			services, err := f.Services()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			for _, s := range services {
				words = append(words, s+":")
			}
		}
		return withPrefix(words, prefix), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	f, err := waiters.Builtin.Family(service)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, err := f.Names(service)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	for _, n := range names {
		words = append(words, service+":"+n.Model, service+":"+n.CLI)
	}
	return withPrefix(words, prefix), cobra.ShellCompDirectiveNoFileComp
}

func withPrefix(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}

// completeBackoff offers the delay strategies of backoff's table, each with
// its line of help (zsh and fish show it beside the word).
func completeBackoff(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	var words []string
	for _, s := range backoff.Strategies() {
		if strings.HasPrefix(s.Name, prefix) {
			words = append(words, s.Name+"\t"+s.Help)
		}
	}
	return words, cobra.ShellCompDirectiveNoFileComp
}
