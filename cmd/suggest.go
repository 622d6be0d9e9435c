package cmd

import (
	"errors"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// An alias is a flag name users bring from another tool and ours for it.
// The tables are slices rather than maps: static data, where a map would
// be built by the package's init at every start, for an unknown flag only.
type alias struct {
	name string
	to   []string
}

// aliasOf returns what table gives for name.
func aliasOf(table []alias, name string) []string {
	for _, a := range table {
		if a.name == name {
			return a.to
		}
	}
	return nil
}

// flagAliases maps flag names users bring from other tools (curl, wait-for-it,
// Debian's retry, GNU timeout) to ours.
var flagAliases = []alias{
	{"timeout", []string{"--attempt-timeout", "--max-time"}},
	{"retries", []string{"-n/--attempts"}},
	{"retry", []string{"-n/--attempts"}},
	{"tries", []string{"-n/--attempts"}},
	{"times", []string{"-n/--attempts"}},
	{"max-retries", []string{"-n/--attempts"}},
	{"max-attempts", []string{"-n/--attempts"}},
	{"count", []string{"-n/--attempts"}},
	{"interval", []string{"--delay"}},
	{"sleep", []string{"--delay"}},
	{"wait", []string{"--delay"}},
	{"initial-delay", []string{"--delay"}},
	{"retry-delay", []string{"--delay"}},
	{"max-interval", []string{"--max-delay"}},
	{"retry-max-time", []string{"--max-time"}},
	{"deadline", []string{"--max-time"}},
	{"silent", []string{"-q/--quiet"}},
	{"json", []string{"--log-format json"}},
}

// shortAliases does the same for single-letter flags.
var shortAliases = []alias{
	{"t", []string{"-n/--attempts"}},
	{"r", []string{"-n/--attempts"}},
	{"i", []string{"--delay"}},
	{"s", []string{"--delay"}},
	{"m", []string{"--max-time"}},
}

// flagErrorTextFor is flagErrorText for command c: an unknown flag gets
// suggestions and points at c's help.
func flagErrorTextFor(c *cobra.Command, err error) string {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return flagErrorText(err)
	}
	var sugg []string
	switch name := ne.GetSpecifiedName(); {
	case ne.GetSpecifiedShortnames() != "": // -t
		sugg = aliasOf(shortAliases, name)
	case name != "":
		name = strings.ToLower(name)
		sugg = append(sugg, aliasOf(flagAliases, name)...)
		if len(sugg) == 0 {
			sugg = similarFlags(c.Flags(), name)
		}
	}
	s := ne.Error()
	if len(sugg) > 0 {
		s += " (did you mean " + strings.Join(sugg, " or ") + "?)"
	}
	return s + "; see " + c.CommandPath() + " --help"
}

// similarFlags returns the flags of fs whose name is within two edits of
// name, or has it as a prefix, closest first.
func similarFlags(fs *pflag.FlagSet, name string) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(name, f.Name)
		if d <= 2 || (len(name) >= 3 && strings.HasPrefix(f.Name, name)) {
			cs = append(cs, cand{f.Name, d})
		}
	})
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i, c := range cs {
		if i == 3 {
			break
		}
		out = append(out, "--"+c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b (bytes, which
// flag names are). Two rows of the textbook table: a module for it would
// cost more than these lines.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
