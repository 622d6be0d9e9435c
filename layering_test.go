package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of this module.
const module = "github.com/retry-dev/retry"

// floors is SPEC.md's architecture table, by top-level directory: the
// top-level directories whose packages a package may import. backoff,
// bucket and acceptor are at the bottom and import only their own
// subpackages; runner imports them; cmd and its subpackages (the
// presentation layer) import everything below them; only main imports cmd
// (and tools/mangen, which is not part of the binary:
// it writes the man pages of cmd's commands). internal/ and bench/ hold
// programs of their own (a go:generate generator, the servers and Go
// floors of the bench scripts) that import no project package.
var floors = map[string][]string{
	"acceptor": {"acceptor"},
	"backoff":  {"backoff"},
	"bucket":   {"bucket", "privatefile"},
	// privatefile: a private, locked file of the user's (scope and state
	// files), under everything that keeps state.
	"privatefile": nil,
	"runner":      {"runner", "acceptor", "backoff", "bucket", "privatefile"},
	"cmd":         {"cmd", "acceptor", "backoff", "bucket", "privatefile", "runner"},
	".":           {"cmd"},
	"tools":       {"cmd"},
	"internal":    nil,
	"bench":       nil,
}

// imports lists every package of the module (its directory; "." is main)
// with the project packages it may import, within its floor. A package not
// listed fails TestLayering: a new package gets a row here.
var imports = map[string][]string{
	".": {"cmd"},

	// The presentation layer. cmd wires cobra to the options and maps
	// outcomes to exit statuses; what it calls lives in its subpackages.
	"cmd": {"acceptor", "acceptor/botocore", "bucket",
		"cmd/completion", "cmd/internal/echo", "cmd/internal/exit", "cmd/internal/human", "cmd/internal/iostreams", "cmd/internal/plan", "cmd/internal/sinks", "cmd/internal/sources",
		"cmd/scope", "cmd/state", "cmd/version",
		"runner", "runner/command", "runner/durable", "runner/durable/redisstore", "runner/output"},
	// Leaves of the presentation layer: exit statuses, the streams and
	// environment a command sees, how things are said to people, and the
	// splitting of a command string.
	"cmd/internal/exit":      {"runner/output"}, // runner/output: a test builds a broken stream
	"cmd/internal/iostreams": {"runner/command"},
	"cmd/internal/human":     {"acceptor", "cmd/internal/sources", "runner"},
	// The kinds of attempt as values: one row per source, which the plan,
	// human, the sinks and completion read. A new source is a package
	// under runner/ and a row here.
	"cmd/internal/sources":    {"acceptor", "cmd/version", "runner", "runner/redact", "runner/request", "runner/tcp"},
	"cmd/internal/shellwords": nil,
	// The plan: options, validation and the run built from them. It knows
	// no sink.
	"cmd/internal/plan": {"acceptor", "acceptor/botocore", "acceptor/jmes", "acceptor/waitermodel", "acceptor/waiters", "backoff", "bucket", "bucket/file", "bucket/redis",
		"cmd/internal/echo", "cmd/internal/exit", "cmd/internal/human", "cmd/internal/iostreams", "cmd/internal/shellwords", "cmd/internal/sources", "cmd/internal/writepolicy", "cmd/version",
		"runner", "runner/command", "runner/durable", "runner/durable/redisstore", "runner/output", "runner/redact"},
	// The sinks of the runner's events. They know neither the plan nor
	// its options.
	// What they write that may repeat an attempt goes through the echo
	// policy's types, never runner/redact directly.
	"cmd/internal/sinks": {"acceptor", "bucket", "cmd/internal/echo", "cmd/internal/human", "cmd/internal/sources", "cmd/internal/writepolicy", "runner", "runner/command", "runner/output", "runner/request"},
	// The subcommands other than run and wait, and the flags' completions.
	"cmd/completion": {"acceptor/waiters", "backoff", "bucket/file", "cmd/internal/iostreams", "cmd/internal/plan", "cmd/internal/sources"},
	"cmd/scope":      {"bucket", "bucket/file", "bucket/redis", "cmd/internal/exit", "cmd/internal/iostreams", "cmd/internal/plan"},
	"cmd/state":      {"cmd/internal/echo", "cmd/internal/exit", "cmd/internal/human", "cmd/internal/iostreams", "runner/durable", "runner/durable/redisstore"},
	"cmd/version":    {"cmd/internal/iostreams"},

	// The policies of cmd's sinks: how every file retry writes for the user
	// is written, and how every byte it repeats is redacted and wrapped.
	"cmd/internal/writepolicy": nil,
	"cmd/internal/echo":        {"runner/redact"},

	// The strategy loop knows only its Source interface.
	"runner": {"acceptor", "backoff", "bucket"},
	// The other attempt sources know the loop (its Result, the causes of a
	// stopped attempt) and find error codes with acceptor/errorcode.
	"runner/command": {"acceptor", "acceptor/errorcode", "backoff", "runner", "runner/output"},                  // backoff: a test runs the loop
	"runner/request": {"acceptor", "acceptor/errorcode", "backoff", "runner", "runner/output", "runner/redact"}, // backoff: a test runs the loop
	// What the sources keep of an attempt's output, and redaction: leaves
	// under the sources, which cmd uses too.
	"runner/output": nil,
	"runner/redact": nil,
	// The durable sequence of --state: one step of the runner's loop, kept
	// in a file. The runner itself does not know it.
	"runner/durable": {"acceptor", "backoff", "runner", "privatefile"},
	// The sequence of --state redis://…/KEY, on the store of --scope-store.
	"runner/durable/redisstore": {"bucket/redis", "runner/durable"},
	// The --tcp attempt source.
	"runner/tcp": {"acceptor", "backoff", "bucket", "runner"},

	// The directive core, and what builds on it: JMESPath matchers and
	// queries, waiter models, the error codes of failed attempts, the
	// built-in botocore models. The core imports none of them.
	"acceptor":             nil,
	"acceptor/jmes":        {"acceptor"},
	"acceptor/waitermodel": {"acceptor", "acceptor/jmes"},
	"acceptor/errorcode":   nil,
	"acceptor/botocore":    nil,
	// The built-in Kubernetes waiters: one model file, parsed by
	// waitermodel when a k8s: waiter is named.
	"acceptor/k8s": {"acceptor", "acceptor/jmes", "acceptor/waitermodel"},
	// The catalog of waiter families (botocore's, Kubernetes', a model
	// file) that --waiter, --list-waiters and completion read.
	"acceptor/waiters": {"acceptor/botocore", "acceptor/k8s", "acceptor/waitermodel"},

	"backoff": nil,
	// The token bucket and the limiter; where scopes live is beside it:
	// scope files (bucket/file) and Redis (bucket/redis).
	"bucket":       nil,
	"bucket/file":  {"bucket", "privatefile"},
	"bucket/redis": {"bucket"},

	// A private, locked file of the user's: the one open, check and lock
	// of scope files (bucket) and --state files (runner/durable).
	"privatefile": nil,

	"internal/waitergen":  nil,
	"internal/testdir":    nil,
	"internal/testredis":  nil,
	"internal/testbucket": nil,
	"internal/testcert":   nil,
	"bench/gofloor":       nil,
	"bench/httpserver":    nil,
	"bench/listener":      nil,
	"bench/rusage":        nil,
	"bench/statefloor":    nil,
	"bench/storefloor":    nil,
	"bench/stormserver":   nil,
	"tools/actioncheck":   nil,
	"tools/mangen":        {"cmd"},
}

// testHelpers are packages for tests alone, which any package's tests may
// import as they import the standard library's testing (and no package's
// own code may): internal/testdir, the temporary directory that Wine can
// remove; internal/testredis, a throwaway redis-server; internal/testbucket,
// tokens and limiters in the tests of bucket and bucket/file;
// internal/testcert, a certificate for a test's TLS server.
var testHelpers = []string{"internal/testdir", "internal/testredis", "internal/testbucket", "internal/testcert"}

// TestLayering enforces the architecture table of SPEC.md on every package
// of the module, tests included: each package is in imports, imports only
// what its row allows (and itself, from an external test), and each row
// keeps to its floor.
func TestLayering(t *testing.T) {
	pkgs := packageDirs(t)
	for _, dir := range pkgs {
		if _, ok := imports[dir]; !ok {
			t.Errorf("package %s/ has no row in layering_test.go's imports: add one (SPEC.md says what it may import)", dir)
		}
	}
	for dir, allowed := range imports {
		if !slices.Contains(pkgs, dir) {
			t.Errorf("imports has a row for %s/, which is not a package of the module: remove it", dir)
		}
		for _, dep := range allowed {
			if !slices.Contains(floors[top(dir)], top(dep)) {
				t.Errorf("imports lets %s/ import %s: %s/ may import only from %v (SPEC.md)", dir, dep, top(dir), floors[top(dir)])
			}
		}
	}
	for _, dir := range pkgs {
		allowed := imports[dir]
		for file, deps := range projectImports(t, dir) {
			for _, dep := range deps {
				if strings.HasSuffix(file, "_test.go") && slices.Contains(testHelpers, dep) {
					continue
				}
				if dep != dir && !slices.Contains(allowed, dep) { // external tests import their own package
					t.Errorf("%s imports %s: %s/ may import only %v", file, module+"/"+dep, dir, allowed)
				}
			}
		}
	}
}

// top returns the top-level directory of a package directory: bucket for
// bucket/redis, "." for main.
func top(dir string) string {
	first, _, _ := strings.Cut(dir, "/")
	return first
}

// packageDirs returns the directories of the module that hold Go files,
// relative to the module root ("." for main), skipping testdata, hidden
// directories (.git) and bench/out.
func packageDirs(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var dirs []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != "." && (name == "testdata" || strings.HasPrefix(name, ".") || filepath.ToSlash(p) == "bench/out") {
				return filepath.SkipDir
			}
			return nil
		}
		if dir := filepath.ToSlash(filepath.Dir(p)); strings.HasSuffix(p, ".go") && !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found only the packages %v: is the test running in the module root?", dirs)
	}
	return dirs
}

// projectImports returns, for each Go file of dir, the project packages it
// imports, as directories.
func projectImports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(path.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
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
			p, _ := strconv.Unquote(imp.Path.Value)
			if dep, ok := strings.CutPrefix(p, module+"/"); ok {
				out[f] = append(out[f], dep)
			} else if p == module {
				out[f] = append(out[f], ".")
			}
		}
	}
	return out
}
