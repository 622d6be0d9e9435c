// Command mangen writes the man pages of retry — retry(1), retry-run(1),
// retry-wait(1) and one per other command — from the cobra command tree,
// with EXIT STATUS and ENVIRONMENT sections. It is a separate program so
// that cobra/doc and its Markdown-to-roff renderer are never linked into
// the retry binary:
//
//	go run ./tools/mangen DIR
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/cmd"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mangen DIR")
		os.Exit(2)
	}
	if err := generate(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "mangen:", err)
		os.Exit(1)
	}
}

// generate writes one page per command of the tree into dir. The date is
// SOURCE_DATE_EPOCH's when set, so release builds are reproducible.
func generate(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	date := time.Now()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		var sec int64
		if _, err := fmt.Sscan(s, &sec); err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH: %q: want seconds since 1970", s)
		}
		date = time.Unix(sec, 0).UTC()
	}
	root := cmd.NewCmdRoot(cmd.SystemIO())
	root.InitDefaultCompletionCmd()
	root.DisableAutoGenTag = true
	return walk(root, func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != root {
			return nil
		}
		c.DisableAutoGenTag = true
		header := &doc.GenManHeader{Title: strings.ToUpper(strings.ReplaceAll(c.CommandPath(), " ", "-")), Section: "1",
			Date: &date, Source: "retry " + cmd.Version(), Manual: "User Commands"}
		var b bytes.Buffer
		if err := doc.GenMan(c, header, &b); err != nil {
			return err
		}
		page := b.String()
		if c == root || c.Name() == "run" || c.Name() == "wait" {
			page = insertSections(page, exitStatusSection()+environmentSection(c))
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		return os.WriteFile(filepath.Join(dir, name), []byte(page), 0o644)
	})
}

func walk(c *cobra.Command, fn func(*cobra.Command) error) error {
	if err := fn(c); err != nil {
		return err
	}
	for _, sub := range c.Commands() {
		if err := walk(sub, fn); err != nil {
			return err
		}
	}
	return nil
}

// insertSections puts extra sections before SEE ALSO (or at the end).
func insertSections(page, extra string) string {
	if i := strings.Index(page, ".SH SEE ALSO"); i >= 0 {
		return page[:i] + extra + page[i:]
	}
	return page + extra
}

func exitStatusSection() string {
	var b strings.Builder
	b.WriteString(".SH EXIT STATUS\n")
	for _, row := range cmd.ExitStatusTable() {
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", roff(row[0]), roff(row[1]))
	}
	return b.String()
}

// environmentSection lists the variables retry reads: RETRY_<FLAG> for
// each flag of c (run and wait), the state directory, the CI systems', and
// those retry sets for the command.
func environmentSection(c *cobra.Command) string {
	var b strings.Builder
	b.WriteString(".SH ENVIRONMENT\n")
	var flags []string
	if c.Name() == "run" || c.Name() == "wait" {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" {
				flags = append(flags, f.Name)
			}
		})
		sort.Strings(flags)
		b.WriteString(".PP\nEvery flag has an environment default; the flag wins when both are given.\n")
		for _, f := range flags {
			fmt.Fprintf(&b, ".TP\n\\fBRETRY_%s\\fR\ndefault of \\-\\-%s\n", strings.ToUpper(strings.ReplaceAll(f, "-", "_")), roff(f))
		}
	}
	for _, v := range [][2]string{
		{"RETRY_STATE_DIR", "where scopes keep their state; else $XDG_STATE_HOME/retry, else ~/.local/state/retry"},
		{"XDG_STATE_HOME", "see RETRY_STATE_DIR"},
		{"TMPDIR", "where an attempt's stdout beyond 1 MiB is spilled"},
		{"GITHUB_ACTIONS", "true: GitHub Actions conventions (groups, annotations) with \\-\\-ci auto"},
		{"GITHUB_OUTPUT", "file the step outputs attempts, exit\\-code and outcome are appended to (GitHub)"},
		{"GITHUB_STEP_SUMMARY", "file the Markdown table of attempts is appended to (GitHub)"},
		{"GITLAB_CI", "true: GitLab CI collapsible sections with \\-\\-ci auto"},
		{"RETRY_ATTEMPT", "set for the command: the attempt's number, from 1"},
		{"RETRY_MAX_ATTEMPTS", "set for the command: the most attempts (0: unlimited)"},
	} {
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", v[0], v[1])
	}
	return b.String()
}

// roff escapes text for a roff paragraph.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
