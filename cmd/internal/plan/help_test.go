package plan

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpCommands returns run and wait with their flags and grouped help.
func helpCommands() []*cobra.Command {
	var cs []*cobra.Command
	for _, wait := range []bool{false, true} {
		c := &cobra.Command{Use: map[bool]string{false: "run", true: "wait"}[wait], Example: "  retry …", RunE: func(*cobra.Command, []string) error { return nil }}
		newCommand(wait, &iostreams.IOStreams{}).Register(c.Flags())
		SetGroupedHelp(c)
		cs = append(cs, c)
	}
	return cs
}

// TestEveryFlagHasAGroup fails when a flag is registered (by anyone, in any
// merge) without a place in flagGroups: help would show it under "Other".
func TestEveryFlagHasAGroup(t *testing.T) {
	for _, c := range helpCommands() {
		c.InitDefaultHelpFlag()
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && groupOf(f.Name) == "" {
				t.Errorf("retry %s: flag --%s is in no help group: add it to flagGroups in cmd/internal/plan/help.go", c.Name(), f.Name)
			}
		})
	}
}

func TestFlagGroupsHoldEachFlagOnce(t *testing.T) {
	seen := map[string]string{}
	for _, g := range flagGroups() {
		for _, f := range g.flags {
			if prev, ok := seen[f]; ok {
				t.Errorf("--%s is in %q and %q", f, prev, g.title)
			}
			seen[f] = g.title
		}
	}
}

// TestGroupedHelp checks the order of run's and wait's help (examples
// first, the groups in table order, exit status last) and that every flag
// is shown once: by name, or, for acceptor flags, by the line of its
// family (--STATE-exit CODES).
func TestGroupedHelp(t *testing.T) {
	for _, c := range helpCommands() {
		var out bytes.Buffer
		c.SetOut(&out)
		c.SetArgs([]string{"--help"})
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		help := out.String()
		pos := func(s string) int {
			i := strings.Index(help, s)
			if i < 0 {
				t.Fatalf("retry %s --help: no %q in\n%s", c.Name(), s, help)
			}
			return i
		}
		last := pos("Examples:\n")
		for _, g := range flagGroups() {
			i := strings.Index(help, "\n\n"+g.title+":\n")
			if g.title == "Acceptors" {
				i = strings.Index(help, "\n\nAcceptors (")
			}
			if i < 0 {
				continue // a group none of whose flags this command has
			}
			if i < last {
				t.Errorf("retry %s --help: group %q out of order", c.Name(), g.title)
			}
			last = i
		}
		if i := pos("\nExit status:\n"); i < last || !strings.HasSuffix(strings.TrimSpace(help), "128+N    retry itself received signal N") {
			t.Errorf("retry %s --help: the exit status table is not last", c.Name())
		}
		families := map[string]bool{}
		for _, k := range acceptorKinds() {
			for _, st := range k.states {
				families[st.String()+k.suffix] = true
			}
			if c.Flags().Lookup(k.states[0].String()+k.suffix) != nil {
				if n := strings.Count(help, "--STATE"+k.suffix+" "+k.arg); n != 1 {
					t.Errorf("retry %s --help: acceptor family --STATE%s shown %d times", c.Name(), k.suffix, n)
				}
			}
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if families[f.Name] {
				return
			}
			re := regexp.MustCompile(`(?m)^  (-[a-zA-Z], |    )--` + regexp.QuoteMeta(f.Name) + `( |$)`)
			if n := len(re.FindAllString(help, -1)); n != 1 {
				t.Errorf("retry %s --help: --%s listed %d times, want once", c.Name(), f.Name, n)
			}
		})
	}
}

// TestHelpFitsTheWidth wraps run's and wait's help at several widths: no
// line is wider unless it is one word after its indentation, every word
// of the help is still there in order, and a flag's continuation lines
// start at its description's column.
func TestHelpFitsTheWidth(t *testing.T) {
	for _, c := range helpCommands() {
		var raw bytes.Buffer
		c.SetOut(&raw)
		c.SetArgs([]string{"--help"})
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		for _, width := range []int{40, 50, 80, 120} {
			got := WrapHelp(raw.String(), width)
			if a, b := strings.Fields(raw.String()), strings.Fields(got); strings.Join(a, " ") != strings.Join(b, " ") {
				t.Errorf("retry %s --help at %d columns: the words changed", c.Name(), width)
			}
			for _, line := range strings.Split(got, "\n") {
				if n := len([]rune(line)); n > width && len(strings.Fields(line)) > 1 {
					t.Errorf("retry %s --help at %d columns: a line of %d: %q", c.Name(), width, n, line)
				}
			}
		}
	}
	for _, tc := range []struct {
		width int
		want  string
	}{
		{44, "  -n, --attempts N   most attempts, the\n                     first included; 0 is\n                     unlimited"},
		{40, "  -n, --attempts N\n          most attempts, the first\n          included; 0 is unlimited"},
	} {
		if got := WrapHelp("  -n, --attempts N   most attempts, the first included; 0 is unlimited", tc.width); got != tc.want {
			t.Errorf("a flag line at %d columns:\n%s\nwant\n%s", tc.width, got, tc.want)
		}
	}
}
