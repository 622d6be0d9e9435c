//go:build unix

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// Scripts never write to the machine's /dev/null or /dev/full: a bug of
// the kind the write-policy scripts exist to catch would replace them for
// the whole machine (CI runs as root). They make device nodes of their own
// in their work directory instead, which needs root (and CAP_MKNOD):
// `[!mknod] skip` before the part that needs one.
func init() {
	scriptCommands["mkdev"] = cmdMkdev
}

// scriptDevices are the devices mkdev makes: Linux's memory devices.
var scriptDevices = map[string][2]uint32{"null": {1, 3}, "full": {1, 7}}

// cmdMkdev is `mkdev NAME null|full`: it makes NAME, in the script's
// directory, a character device node of its own with the numbers of
// /dev/null (1:3) or /dev/full (1:7), mode 0666.
func cmdMkdev(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mkdev NAME null|full")
	}
	dev, ok := scriptDevices[args[1]]
	if !ok {
		ts.Fatalf("mkdev: unknown device %q; want null or full", args[1])
	}
	ts.Check(mkdev(ts.MkAbs(args[0]), dev))
}

// canMknod reports whether this test can make device nodes: root with
// CAP_MKNOD (not every container grants it), tried in dir.
func canMknod(t *testing.T) bool {
	if os.Geteuid() != 0 {
		return false
	}
	return mkdev(filepath.Join(t.TempDir(), "null"), scriptDevices["null"]) == nil
}

// hostWrites are the ways a test can name a file outside its own
// directory as a write target: a shell redirection to /dev/null, /dev/full
// and the like, a sink flag or a script command's output on /dev/... or
// /tmp/..., a Go write call on such a path, a path under /tmp.
var hostWrites = []*regexp.Regexp{
	regexp.MustCompile(`[0-9&]?>>?\s*/dev/(null|full|zero|stdout|stderr|stdin|tty)\b`),
	regexp.MustCompile(`(--report|--log-file|--state|-stdout|-stderr)[ =]+/(dev|tmp|proc)/`),
	regexp.MustCompile(`\b(Replace|Append|Open|OpenFile|Create|WriteFile|Mkfifo|Mknod)\("/(dev/(null|full|zero|stdout|stderr|stdin)\b|tmp/)`),
	regexp.MustCompile(`(^|[\s'":=]|//)/tmp/`),
}

// Tests never name a path outside their own directory as a write target:
// not the machine's /dev/null or /dev/full (a bug of the kind the write
// policy's tests exist to catch would replace them for the whole machine,
// as root on CI), not /tmp. They make what they need in their directory:
// device nodes (mkdev, [mknod]), links to /proc/self/fd/N, files.
func TestTestsWriteOnlyTheirOwnFiles(t *testing.T) {
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, "_test.go") && p != "devices_test.go" || strings.HasPrefix(p, "testdata/script/") && strings.HasSuffix(p, ".txtar") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "//") {
				continue // a comment may name them
			}
			for _, re := range hostWrites {
				if m := re.FindString(line); m != "" {
					t.Errorf("%s:%d: writes outside the test's directory (%q): %s", p, i+1, m, strings.TrimSpace(line))
				}
			}
		}
	}
}
