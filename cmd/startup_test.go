package cmd

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/cmd/internal/plan"
)

// BenchmarkCommandLine is what `retry run -q -- /bin/true` does before its
// attempt (bench/startup.sh times the whole start): "tree" builds the
// command tree and lets cobra find the command and parse its flags; "plan"
// registers the flags on a flag set of their own, applies their environment
// defaults and builds the plan.
func BenchmarkCommandLine(b *testing.B) {
	ios, _, _ := testIO()
	args := []string{"run", "-q", "--", "/bin/true"}
	b.Run("tree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			root := newCmdRoot(ios, nil, args)
			root.SetArgs(args)
			for _, c := range root.Commands() {
				c.RunE = func(*cobra.Command, []string) error { return nil }
			}
			if err := root.Execute(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			o := plan.NewRun(ios)
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			fs.SetInterspersed(false)
			o.Register(fs)
			if err := fs.Parse(args[1:]); err != nil {
				b.Fatal(err)
			}
			p, err := o.Plan(fs, fs.Args(), false)
			if err != nil {
				b.Fatal(err)
			}
			p.Close()
		}
	})
}
