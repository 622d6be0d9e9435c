package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/cmd"
)

// TestManPages generates the pages and checks that retry(1), retry-run(1)
// and retry-wait(1) exist, that run's and wait's pages list every flag and
// its RETRY_ variable, and hold the exit status table.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	if err := generate(dir); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	root := read("retry.1")
	if !strings.Contains(root, ".SH EXIT STATUS") || !strings.Contains(root, `.TH "RETRY" "1" "Jan 2026"`) {
		t.Errorf("retry.1: no EXIT STATUS section or wrong header:\n%s", root)
	}
	io := cmd.SystemIO()
	for name, c := range map[string]interface{ Flags() *pflag.FlagSet }{
		"retry-run.1": cmd.NewCmdRun(io), "retry-wait.1": cmd.NewCmdWait(io),
	} {
		page := read(name)
		for _, sec := range []string{".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH EXAMPLE", ".SH EXIT STATUS", ".SH ENVIRONMENT", ".SH SEE ALSO"} {
			if !strings.Contains(page, sec+"\n") {
				t.Errorf("%s: no %s section", name, sec)
			}
		}
		n := 0
		c.Flags().VisitAll(func(f *pflag.Flag) {
			n++
			if !strings.Contains(page, `\fB--`+f.Name+`\fP`) {
				t.Errorf("%s: no --%s in OPTIONS", name, f.Name)
			}
			env := "RETRY_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
			if !strings.Contains(page, `\fB`+env+`\fR`) {
				t.Errorf("%s: no %s in ENVIRONMENT", name, env)
			}
		})
		if n < 40 {
			t.Errorf("%s: only %d flags checked", name, n)
		}
		for _, row := range cmd.ExitStatusTable() {
			if !strings.Contains(page, `\fB`+roff(row[0])+`\fR`+"\n"+roff(row[1])+"\n") {
				t.Errorf("%s: exit status %s missing", name, row[0])
			}
		}
		if len(cmd.ExitStatusTable()) != 10 {
			t.Errorf("exit status table has %d rows, want 10", len(cmd.ExitStatusTable()))
		}
	}
}

// TestNotLinkedIntoRetry checks that the man page generator's libraries
// stay out of the retry binary.
func TestNotLinkedIntoRetry(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/retry-dev/retry").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, pkg := range []string{"github.com/spf13/cobra/doc", "github.com/cpuguy83/go-md2man/v2/md2man"} {
		if strings.Contains(string(out), pkg+"\n") {
			t.Errorf("retry links %s", pkg)
		}
	}
}
