package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLayering enforces the architecture table of SPEC.md: backoff/,
// bucket/ and acceptor/ import no project package; runner/ imports only
// acceptor, backoff and bucket; nothing but main imports cmd/. Every
// package under those folders has a row, and every import of another
// project package is listed in it by its full path.
func TestLayering(t *testing.T) {
	const module = "github.com/retry-dev/retry"
	allowed := map[string][]string{
		"acceptor": nil,
		"backoff":  nil,
		"bucket":   nil,
		// Subpackages keep their parent's rules and may import the parent.
		"bucket/redis": {"bucket"},
		"runner":       {"acceptor", "backoff", "bucket"},
		// The durable sequence of --state: one step of the runner's loop,
		// kept in a file. The runner itself does not know it.
		"runner/durable": {"acceptor", "backoff", "runner"},
		// acceptor/botocore holds the built-in botocore waiter models.
		"acceptor/botocore": nil,
		// JMESPath matchers and queries, waiter models, error codes of
		// failed attempts: above the directive core, never below it.
		"acceptor/errorcode":   nil,
		"acceptor/jmes":        {"acceptor"},
		"acceptor/waitermodel": {"acceptor", "acceptor/jmes"},
		// runner/tcp is the --tcp attempt source.
		"runner/tcp": {"acceptor", "backoff", "bucket", "runner"},
		// The other attempt sources know the loop (its Result, the causes
		// of a stopped attempt); the loop knows only its Source interface.
		"runner/command": {"acceptor", "acceptor/errorcode", "runner", "runner/output"},
		"runner/request": {"acceptor", "acceptor/errorcode", "backoff", "runner", "runner/output", "runner/redact"}, // backoff: a test runs the loop
		// What the sources keep of an attempt's output, and redaction:
		// leaves under the sources, which cmd uses too.
		"runner/output": nil,
		"runner/redact": nil,
		"cmd":           {"acceptor", "acceptor/botocore", "acceptor/errorcode", "acceptor/jmes", "acceptor/waitermodel", "backoff", "bucket", "bucket/redis", "runner", "runner/command", "runner/durable", "runner/output", "runner/redact", "runner/request", "runner/tcp"},
	}
	// Every package under the four floors and cmd has a row: a new
	// subpackage cannot slip past the table.
	for _, root := range []string{"acceptor", "backoff", "bucket", "runner", "cmd"} {
		filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if goFiles, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(goFiles) > 0 {
				if _, ok := allowed[filepath.ToSlash(dir)]; !ok {
					t.Errorf("%s/ has no row in the layering table", dir)
				}
			}
			return nil
		})
	}
	for pkg, ok := range allowed {
		files, err := filepath.Glob(filepath.Join(pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s/: %v", pkg, err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if !strings.HasPrefix(path, module+"/") {
					continue
				}
				// Each import is listed by its full path: listing "runner"
				// does not let a package import runner/command, so a new
				// arrow between subpackages shows up here as a new entry.
				dep := strings.TrimPrefix(path, module+"/")
				if dep != pkg && !slices.Contains(ok, dep) { // external tests import their own package
					t.Errorf("%s imports %s: %s/ may import only %v", f, path, pkg, ok)
				}
			}
		}
	}
}
