package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayering enforces the architecture table of SPEC.md: backoff/,
// bucket/ and acceptor/ import no project package; runner/ imports only
// acceptor, backoff and bucket; nothing but main imports cmd/.
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
		"runner/command": {"acceptor", "runner", "runner/output"},
		"runner/request": {"acceptor", "backoff", "runner", "runner/output", "runner/redact"}, // backoff: a test runs the loop
		// What the sources keep of an attempt's output, and redaction:
		// leaves under the sources, which cmd uses too.
		"runner/output": nil,
		"runner/redact": nil,
		"cmd":           {"acceptor", "backoff", "bucket", "bucket/redis", "runner", "runner/command", "runner/durable", "runner/output", "runner/redact", "runner/request", "runner/tcp", "acceptor/botocore"},
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
				dep := strings.TrimPrefix(path, module+"/")
				top, _, _ := strings.Cut(dep, "/")                          // bucket/redis is part of bucket
				if dep != pkg && !contains(ok, dep) && !contains(ok, top) { // external tests import their own package
					t.Errorf("%s imports %s: %s/ may import only %v", f, path, pkg, ok)
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
