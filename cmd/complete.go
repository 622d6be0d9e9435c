package cmd

import (
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/acceptor"
)

// fileFlags are the flags whose value is a file to complete; the value is
// the extensions to offer (none: any file).
var fileFlags = map[string][]string{
	"waiter-file": {"json"},
	"report":      nil,
	"state":       nil,
	"cacert":      nil,
	"log-file":    nil,
}

// registerCompletions gives c's flags completions that know the domain:
// the words of every enum flag, files for file flags, the waiters of the
// --waiter-file on the line for --waiter, the existing scopes for --scope.
// The command itself completes as the shell would (commands and files).
func registerCompletions(c *cobra.Command) {
	fs := c.Flags()
	fs.VisitAll(func(f *pflag.Flag) {
		var fn cobra.CompletionFunc
		switch v := f.Value.(type) {
		case enumValue:
			words := v.allowed
			fn = func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
				return withPrefix(words, prefix), cobra.ShellCompDirectiveNoFileComp
			}
		}
		if exts, ok := fileFlags[f.Name]; ok {
			fn = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				if len(exts) > 0 {
					return exts, cobra.ShellCompDirectiveFilterFileExt
				}
				return nil, cobra.ShellCompDirectiveDefault
			}
		}
		switch f.Name {
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
// earlier on the line (or in RETRY_WAITER_FILE).
func completeWaiter(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	file := ""
	if f := c.Flags().Lookup("waiter-file"); f != nil {
		file = f.Value.String()
	}
	if file == "" {
		file = os.Getenv("RETRY_WAITER_FILE")
	}
	if file == "" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	wf, err := acceptor.LoadWaiters(file)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return withPrefix(wf.Names(), prefix), cobra.ShellCompDirectiveNoFileComp
}

// completeScope offers the scopes that have state on this machine: the
// NAME.json files of the state directory (bucket.OpenScope's layout).
func completeScope(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	dir, err := stateDir()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && e.Type().IsRegular() && name != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return withPrefix(names, prefix), cobra.ShellCompDirectiveNoFileComp
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
