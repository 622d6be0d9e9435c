//go:build unix

package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["cmpci"] = cmdCmpCI
	scriptCommands["envfile"] = cmdEnvFile
}

// cmdEnvFile: `envfile NAME FILE` sets the environment variable NAME to the
// content of FILE, line breaks included (env cannot).
func cmdEnvFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envfile NAME FILE")
	}
	scriptSetenv(ts, args[0], strings.TrimSuffix(ts.ReadFile(args[1]), "\n"))
}

var (
	ciDuration  = regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|ms|s)\b`)
	ciSection   = regexp.MustCompile(`section_(start|end):(\d+):`)
	ciHeredoc   = regexp.MustCompile(`^([A-Za-z0-9_-]+)<<(.*)$`)
	ciDelimiter = regexp.MustCompile(`^ghadelimiter_[0-9a-f]{32}$`)
)

// cmdCmpCI: `cmpci FILE|stdout|stderr WANT` compares CI output with WANT
// after making the parts that change from run to run stable: durations
// other than 0s become DUR, GitLab section timestamps TS, ESC <ESC> and CR
// <CR>. In $GITHUB_OUTPUT heredocs each delimiter must be a fresh random
// ghadelimiter_<32 hex> that ends its own value; it becomes DELIM.
func cmdCmpCI(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmpci FILE|stdout|stderr WANT")
	}
	got := ts.ReadFile(args[0])
	want := ts.ReadFile(args[1])
	got, err := normaliseHeredocs(got)
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	got = normaliseStopTokens(ts, got)
	got = ciSection.ReplaceAllString(got, "section_${1}:TS:")
	got = ciDuration.ReplaceAllStringFunc(got, func(s string) string {
		if s == "0s" {
			return s
		}
		return "DUR"
	})
	got = strings.NewReplacer("\x1b", "<ESC>", "\r", "<CR>").Replace(got)
	if got != want {
		ts.Logf("%s (normalised):\n%s", args[0], got)
		ts.Fatalf("%s and %s differ", args[0], args[1])
	}
}

// stopCommands finds the start of a block of repeated bytes on GitHub.
var stopCommands = regexp.MustCompile(`::stop-commands::(retry-[0-9a-f]{32})\n`)

// normaliseStopTokens checks that every ::stop-commands::TOKEN block is
// resumed by ::TOKEN:: (on a line of its own, later) and replaces the
// token, random per run, with TOKEN.
func normaliseStopTokens(ts *testscript.TestScript, s string) string {
	for _, m := range stopCommands.FindAllStringSubmatchIndex(s, -1) {
		tok := s[m[2]:m[3]]
		if !strings.Contains(s[m[1]:], "\n::"+tok+"::\n") {
			ts.Fatalf("::stop-commands::%s is never resumed", tok)
		}
	}
	for _, tok := range stopCommands.FindAllStringSubmatch(s, -1) {
		s = strings.ReplaceAll(s, tok[1], "TOKEN")
	}
	return s
}

// normaliseHeredocs checks the heredoc blocks of a $GITHUB_OUTPUT file and
// replaces their delimiters with DELIM. Text that is not a heredoc block is
// kept as it is.
func normaliseHeredocs(s string) (string, error) {
	if !strings.Contains(s, "<<ghadelimiter_") {
		return s, nil
	}
	lines := strings.SplitAfter(s, "\n")
	seen := map[string]bool{}
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		m := ciHeredoc.FindStringSubmatch(strings.TrimSuffix(lines[i], "\n"))
		if m == nil {
			b.WriteString(lines[i])
			continue
		}
		delim := m[2]
		if !ciDelimiter.MatchString(delim) {
			return "", fmt.Errorf("output %s: delimiter %q is not ghadelimiter_<32 hex digits>", m[1], delim)
		}
		if seen[delim] {
			return "", fmt.Errorf("output %s: delimiter %s used twice", m[1], delim)
		}
		seen[delim] = true
		fmt.Fprintf(&b, "%s<<DELIM\n", m[1])
		j := i + 1
		for ; j < len(lines) && strings.TrimSuffix(lines[j], "\n") != delim; j++ {
			b.WriteString(lines[j])
		}
		if j == len(lines) {
			return "", fmt.Errorf("output %s: no closing delimiter", m[1])
		}
		b.WriteString("DELIM\n")
		i = j
	}
	return b.String(), nil
}
