package completion

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/cmd/internal/plan"
)

// commands returns run and wait with their flags and completions.
func commands() []*cobra.Command {
	var cs []*cobra.Command
	for _, wait := range []bool{false, true} {
		c := &cobra.Command{Use: map[bool]string{false: "run", true: "wait"}[wait]}
		o := plan.NewRun(&iostreams.IOStreams{})
		if wait {
			o = plan.NewWait(&iostreams.IOStreams{})
		}
		o.Register(c.Flags())
		Register(c)
		cs = append(cs, c)
	}
	return cs
}

// TestEnumAndFileFlagsComplete checks that the enum flags of run and wait
// (including those other flags' authors add, as long as SPEC names their
// words) complete their words, and the file flags complete files.
func TestEnumAndFileFlagsComplete(t *testing.T) {
	enums := []string{"backoff", "jitter", "mode", "stdout", "log-format", "ci", "when-empty", "output"}
	for _, c := range commands() {
		for _, name := range enums {
			if c.Flags().Lookup(name) == nil {
				continue
			}
			fn, ok := c.GetFlagCompletionFunc(name)
			if !ok {
				t.Errorf("retry %s --%s: no completion", c.Name(), name)
				continue
			}
			words, dir := fn(c, nil, "")
			if len(words) < 2 || dir != cobra.ShellCompDirectiveNoFileComp {
				t.Errorf("retry %s --%s completes %v (directive %d), want its words and no files", c.Name(), name, words, dir)
			}
		}
		for _, name := range []string{"waiter-file", "report", "state", "cacert", "log-file"} {
			if _, ok := fileFlag(name); !ok {
				t.Errorf("--%s: not a file flag", name)
			}
			if c.Flags().Lookup(name) == nil {
				continue
			}
			fn, ok := c.GetFlagCompletionFunc(name)
			if !ok {
				t.Errorf("retry %s --%s: no completion", c.Name(), name)
				continue
			}
			if _, dir := fn(c, nil, ""); dir != cobra.ShellCompDirectiveDefault && dir != cobra.ShellCompDirectiveFilterFileExt {
				t.Errorf("retry %s --%s: directive %d, want files", c.Name(), name, dir)
			}
		}
	}
}
