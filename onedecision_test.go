package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sourceFiles parses every Go file of the module that is part of a
// program (no test, no testdata), with its path.
func sourceFiles(t *testing.T) map[string]*ast.File {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(p)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found only %d Go files: is the test running in the module root?", len(files))
	}
	return files
}

// The kind of attempt (a command, an HTTP call, a TCP connect) has one
// spelling, acceptor.AttemptKind: no other type or constant names the
// kinds, and no boolean says "HTTP" (or "TCP", or "processes") for one of
// them — a boolean named HTTP that meant "HTTP or TCP" once left the --tcp
// address out of a --state sequence's identity.
func TestOneSpellingOfTheAttemptKind(t *testing.T) {
	kindType := regexp.MustCompile(`(?i)attempt_?kind|kind_?of_?attempt|source_?kind`)
	kindConst := regexp.MustCompile(`(?i)^(command|cmd|http|url|tcp|connect)_?(attempt|kind|source)$`)
	kindBool := regexp.MustCompile(`(?i)^(is_?)?(http|tcp|processes|command)$`)
	for path, f := range sourceFiles(t) {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if kindType.MatchString(n.Name.Name) && !(path == "acceptor/attempt.go" && n.Name.Name == "AttemptKind") {
					t.Errorf("%s: type %s: the kind of attempt is acceptor.AttemptKind", path, n.Name.Name)
				}
			case *ast.ValueSpec:
				for _, name := range n.Names {
					if kindConst.MatchString(name.Name) && path != "acceptor/attempt.go" {
						t.Errorf("%s: %s: the kinds of attempt are acceptor.CommandAttempt, HTTPAttempt and TCPAttempt", path, name.Name)
					}
					if id, ok := n.Type.(*ast.Ident); ok && id.Name == "bool" && kindBool.MatchString(name.Name) {
						t.Errorf("%s: bool %s: say the kind of attempt with acceptor.AttemptKind", path, name.Name)
					}
				}
			case *ast.Field:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "bool" {
					for _, name := range n.Names {
						if kindBool.MatchString(name.Name) {
							t.Errorf("%s: field %s bool: say the kind of attempt with acceptor.AttemptKind", path, name.Name)
						}
					}
				}
			}
			return true
		})
	}
}

// The exit status is decided in one function, cmd's exitStatus (as
// restic's main.go does): no other function of the presentation layer
// returns an int and computes it from retry's exit statuses
// (cmd/internal/exit's constants) or from a signal (128+N). Errors carry what happened up to it;
// the subcommands' errors that name their status (exit.Error) are values,
// not functions.
func TestOneExitStatusFunction(t *testing.T) {
	statuses := map[string]bool{"OK": true, "Failure": true, "Query": true, "IOError": true, "TempFail": true,
		"Timeout": true, "Usage": true, "NotExec": true, "NotFound": true, "ForStream": true}
	for path, f := range sourceFiles(t) {
		if !strings.HasPrefix(path, "cmd/") || strings.HasPrefix(path, "cmd/internal/exit/") {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !returnsInt(fn.Type) {
				continue
			}
			if path == "cmd/status.go" && fn.Name.Name == "exitStatus" {
				continue
			}
			if decidesStatus(fn.Body, statuses) {
				t.Errorf("%s: %s returns an int and computes an exit status: cmd's exitStatus is the one place that decides it", path, fn.Name.Name)
			}
		}
	}
}

// returnsInt reports whether ft has an int among its results.
func returnsInt(ft *ast.FuncType) bool {
	if ft.Results == nil {
		return false
	}
	for _, r := range ft.Results.List {
		if id, ok := r.Type.(*ast.Ident); ok && id.Name == "int" {
			return true
		}
	}
	return false
}

// decidesStatus reports whether n names one of retry's exit statuses
// (exit.X) or adds 128 to a signal.
func decidesStatus(n ast.Node, statuses map[string]bool) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "exit" && statuses[n.Sel.Name] {
				found = true
			}
		case *ast.BinaryExpr:
			if l, ok := n.X.(*ast.BasicLit); ok && n.Op == token.ADD && l.Value == "128" {
				found = true
			}
		}
		return !found
	})
	return found
}

// The plan is built once, in plan.Build: cmd runs it (plan.Plan.Run, with
// the sinks' hooks) and never sets a field of it or of its strategy
// afterwards. (cmd names its plan p.)
func TestPlanBuiltOnce(t *testing.T) {
	for path, f := range sourceFiles(t) {
		if filepath.Dir(path) != "cmd" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for _, lhs := range as.Lhs {
				for e := lhs; ; {
					sel, ok := e.(*ast.SelectorExpr)
					if !ok {
						break
					}
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "p" {
						t.Errorf("%s: sets %s.%s after plan.Build: build it there", path, id.Name, sel.Sel.Name)
					}
					e = sel.X
				}
			}
			return true
		})
	}
}

// cmd sees only the plan: run's and wait's options (plan.Options, the core
// they share, and RunOptions and WaitOptions over it) reach cmd as a
// plan.Command, an interface that registers their flags and builds the
// plan, so no code outside cmd/internal/plan can read a raw option beside
// the plan. It fails when a file of the presentation layer names an
// options type, or when the plan package hands its options out: an
// exported function, method or interface method whose results include one.
func TestCmdSeesOnlyThePlan(t *testing.T) {
	files := sourceFiles(t)
	// The options types: Options and every struct that embeds it.
	options := map[string]bool{}
	for path, f := range files {
		if filepath.Dir(path) != "cmd/internal/plan" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			if ts.Name.Name == "Options" {
				options[ts.Name.Name] = true
			}
			for _, fd := range st.Fields.List {
				if id, ok := fd.Type.(*ast.Ident); ok && len(fd.Names) == 0 && id.Name == "Options" {
					options[ts.Name.Name] = true
				}
			}
			return true
		})
	}
	if !options["Options"] || len(options) < 3 {
		t.Fatalf("options types found: %v; want plan.Options and run's and wait's over it", options)
	}
	isOptions := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		id, ok := e.(*ast.Ident)
		return ok && options[id.Name]
	}
	for path, f := range files {
		if filepath.Dir(path) == "cmd/internal/plan" {
			ast.Inspect(f, func(n ast.Node) bool {
				var name *ast.Ident
				var ft *ast.FuncType
				switch n := n.(type) {
				case *ast.FuncDecl:
					name, ft = n.Name, n.Type
				case *ast.Field: // an interface's method
					if f, ok := n.Type.(*ast.FuncType); ok && len(n.Names) == 1 {
						name, ft = n.Names[0], f
					}
				}
				if name == nil || !name.IsExported() || ft.Results == nil {
					return true
				}
				for _, r := range ft.Results.List {
					if isOptions(r.Type) {
						t.Errorf("%s: %s returns the options: hand cmd a plan.Command, and the plan built from it", path, name.Name)
					}
				}
				return true
			})
			continue
		}
		if !strings.HasPrefix(path, "cmd/") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "plan" && options[sel.Sel.Name] {
					t.Errorf("%s: names plan.%s: cmd reads the plan (plan.Plan), never the options it was built from", path, sel.Sel.Name)
				}
			}
			return true
		})
	}
}

// A source is a value: its kind is special-cased nowhere in the
// presentation layer but its row of cmd/internal/sources (the command
// aside: its processes and exit statuses are cmd's own job), and the
// flags of the rows are named nowhere in the plan, cmd or completion,
// which read them from the table. A new source is then a package under
// runner/, its kind in acceptor/attempt.go and a row.
func TestSourcesAreRows(t *testing.T) {
	files := sourceFiles(t)
	flags := map[string]bool{}
	for path, f := range files {
		if filepath.Dir(path) != "cmd/internal/sources" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok {
				return true
			}
			if k, ok := kv.Key.(*ast.Ident); ok && (k.Name == "Flag" || k.Name == "Flags") {
				ast.Inspect(kv.Value, func(n ast.Node) bool {
					if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING {
						flags[strings.Trim(l.Value, "\"")] = true
					}
					return true
				})
			}
			return true
		})
	}
	if !flags["url"] || !flags["tcp"] || !flags["data"] {
		t.Fatalf("flags of the sources' rows found: %v; want --url's, --tcp's, --data's…", flags)
	}
	for path, f := range files {
		if !strings.HasPrefix(path, "cmd/") || filepath.Dir(path) == "cmd/internal/sources" {
			continue
		}
		readsFlags := filepath.Dir(path) == "cmd" || filepath.Dir(path) == "cmd/internal/plan" || filepath.Dir(path) == "cmd/completion"
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "acceptor" && (n.Sel.Name == "HTTPAttempt" || n.Sel.Name == "TCPAttempt") {
					t.Errorf("%s: special-cases acceptor.%s: say it in the source's row (cmd/internal/sources) and read the row", path, n.Sel.Name)
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING && readsFlags && flags[strings.Trim(n.Value, "\"")] {
					t.Errorf("%s: names a source's flag %s: read it from the source's row (cmd/internal/sources)", path, n.Value)
				}
			}
			return true
		})
	}
}
