package main

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// echoPkg is the echo policy's package: its types are the only way what
// the sinks write leaves retry.
const echoPkg = module + "/cmd/internal/echo"

// rawUses are the places that write text past redaction (echo.Raw), by
// file and function: retry's own markup, numbers and fixed words, never
// what an attempt said. A new one is a deliberate change: list it here.
var rawUses = map[string]string{
	"cmd/internal/sinks/ci.go:Finish":            "the $GITHUB_OUTPUT heredoc: counts, the exit status and the outcome's word between random delimiters",
	"cmd/root.go:newCmdRoot":                     "the help text, retry's own",
	"cmd/internal/sinks/retried.go:jsonLine":     "a JSON line of retried output: its text is what an echo.Writer wrote, redacted already; numbers and fixed words besides",
	"cmd/internal/plan/help.go:writeGroupedHelp": "run's and wait's help text, retry's own",
	"cmd/internal/plan/waiters.go:listWaiters":   "--list-waiters: the waiters' names, of the built-in models or of the user's model file",
	"cmd/state/state.go:stateShow":               "the sequence's store (a file's path, a key's URL masked by redisstore), which redaction would take for a 'key: VALUE' secret; and --json, whose attempt-derived strings showJSON redacts one by one",
	"cmd/state/state.go:stateReset":              "the sequence's store, as stateShow names it",
}

// The echo policy is a type, not a convention (cli/cli's model: the safe
// path is the default, the raw one greppable). What cmd, the sinks, the
// plan and retry state (which shows what a sequence's attempts said) write on a stream or into a file (fmt.Fprint*, io.WriteString, a
// Write([]byte) on an io.Writer, writepolicy.Append/Replace) is, argument
// by argument: a constant, a number, an echo.Untrusted (fmt's %s and %v
// call its String, redacted), what one of echo's functions returns (a
// redacted string, a JSON's redacted Bytes), or an echo.Raw listed in
// rawUses. A string or bytes of any other making — a field, a variable, a
// helper's result — fails, as does turning an echo.Untrusted or echo.JSON
// back into a string or bytes outside echo. And no file of the
// presentation layer but echo's calls redact.Text, redact.JSON or
// redact.Message: redaction is the policy's.
func TestEchoIsRedacted(t *testing.T) {
	for path, f := range sourceFiles(t) {
		if !strings.HasPrefix(path, "cmd/") || strings.HasPrefix(path, "cmd/internal/echo/") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "redact" && (sel.Sel.Name == "Text" || sel.Sel.Name == "JSON" || sel.Sel.Name == "Message") {
					t.Errorf("%s: calls redact.%s: write it as an echo.Untrusted (or echo.JSON), which redacts on its way out", path, sel.Sel.Name)
				}
			}
			return true
		})
	}

	exports := exportData(t, "./cmd", "./cmd/internal/sinks", "./cmd/internal/plan", "./cmd/state")
	seenRaw := map[string]bool{}
	for _, dir := range []string{"cmd", "cmd/internal/sinks", "cmd/internal/plan", "cmd/state"} {
		fset, files, info := typeCheck(t, dir, exports)
		for _, f := range files {
			path := filepath.ToSlash(fset.File(f.Pos()).Name())
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				c := &echoCheck{t: t, info: info, where: path + ":" + fn.Name.Name, seenRaw: seenRaw}
				ast.Inspect(fn.Body, c.inspect)
			}
		}
	}
	for where, why := range rawUses {
		if !seenRaw[where] {
			t.Errorf("rawUses lists %s (%s), which writes no echo.Raw any more: take it off the list", where, why)
		}
	}
}

// echoCheck checks the writes of one function.
type echoCheck struct {
	t       *testing.T
	info    *types.Info
	where   string // file:function
	seenRaw map[string]bool
}

func (c *echoCheck) inspect(n ast.Node) bool {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return true
	}
	if tv, ok := c.info.Types[call.Fun]; ok && tv.IsType() {
		c.conversion(call, tv.Type)
		return true
	}
	var data []ast.Expr // the arguments that are written
	switch fn := c.callee(call); {
	case fn == nil:
	case fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && (fn.Name() == "Fprint" || fn.Name() == "Fprintln" || fn.Name() == "Fprintf"):
		if c.inMemory(call.Args[0]) {
			break
		}
		data = call.Args[1:]
		if fn.Name() == "Fprintf" {
			if c.info.Types[call.Args[1]].Value == nil {
				c.t.Errorf("%s: fmt.Fprintf with a format that is not a constant: format with echo.Sprintf", c.where)
			}
			data = call.Args[2:]
		}
	case fn.Pkg() != nil && fn.Pkg().Path() == "io" && fn.Name() == "WriteString":
		if !c.inMemory(call.Args[0]) {
			data = call.Args[1:]
		}
	case fn.Pkg() != nil && fn.Pkg().Path() == module+"/cmd/internal/writepolicy" && (fn.Name() == "Append" || fn.Name() == "Replace"):
		data = call.Args[1:2]
	case fn.Name() == "Write" && len(call.Args) == 1:
		// A Write([]byte) on an interface (an io.Writer): a stream retry
		// writes on. (Concrete writers are memory, or echo's own.)
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			break
		}
		if types.IsInterface(c.info.TypeOf(sel.X)) && types.TypeString(c.info.TypeOf(call.Args[0]), nil) == "[]byte" {
			data = call.Args
		}
	}
	for _, e := range data {
		if !c.safe(e) {
			c.t.Errorf("%s: writes %s, which is neither redacted nor echo.Raw: make it an echo.Untrusted (echo.Sprintf), an echo.JSON, or list an echo.Raw in rawUses", c.where, exprText(e))
		}
	}
	return true
}

// callee is the function or method call calls, nil for a builtin or a
// function value.
func (c *echoCheck) callee(call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := call.Fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	}
	if id == nil {
		return nil
	}
	fn, _ := c.info.Uses[id].(*types.Func)
	return fn
}

// inMemory reports whether w is a strings.Builder or bytes.Buffer: text
// being built, written later (and checked there).
func (c *echoCheck) inMemory(w ast.Expr) bool {
	s := types.TypeString(c.info.TypeOf(w), nil)
	return s == "*strings.Builder" || s == "*bytes.Buffer"
}

// conversion checks a conversion: to echo.Raw it is a raw write (listed
// in rawUses); from an echo.Untrusted or echo.JSON to anything but
// another echo type it is the raw way back.
func (c *echoCheck) conversion(call *ast.CallExpr, to types.Type) {
	if isEcho(to, "Raw") {
		c.seenRaw[c.where] = true
		if _, ok := rawUses[c.where]; !ok {
			c.t.Errorf("%s: writes an echo.Raw, unredacted: if it repeats nothing an attempt said, list it in rawUses", c.where)
		}
		return
	}
	from := c.info.TypeOf(call.Args[0])
	if (isEcho(from, "Untrusted") || isEcho(from, "JSON")) && !isEchoType(to) {
		c.t.Errorf("%s: %s turns an echo.%s back into raw text: use its redacted way out (String, Line, WorkflowData, Bytes)", c.where, exprText(call), from.(*types.Named).Obj().Name())
	}
}

// safe reports whether e, written, cannot carry an unredacted string.
func (c *echoCheck) safe(e ast.Expr) bool {
	tv := c.info.Types[e]
	if tv.Value != nil {
		return true // a constant
	}
	if b, ok := tv.Type.Underlying().(*types.Basic); ok && b.Info()&(types.IsNumeric|types.IsBoolean) != 0 {
		return true
	}
	if isEcho(tv.Type, "Untrusted") || isEcho(tv.Type, "Raw") {
		return true // fmt writes an Untrusted redacted (String); a Raw is listed
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return c.safe(e.X)
	case *ast.BinaryExpr:
		return c.safe(e.X) && c.safe(e.Y)
	case *ast.CallExpr:
		if ft, ok := c.info.Types[e.Fun]; ok && ft.IsType() {
			return c.safe(e.Args[0]) // []byte(s), string(b)
		}
		if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "append" {
			for _, a := range e.Args {
				if !c.safe(a) {
					return false
				}
			}
			return true
		}
		fn := c.callee(e)
		return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == echoPkg // redacted on its way out
	}
	return false
}

// isEcho reports whether t is echo's type name.
func isEcho(t types.Type, name string) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == echoPkg && n.Obj().Name() == name
}

func isEchoType(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == echoPkg
}

func exprText(e ast.Expr) string {
	var b bytes.Buffer
	_ = printer.Fprint(&b, token.NewFileSet(), e)
	return b.String()
}

// exportData returns the compiler's export data of pkgs and everything they
// import, by import path (go list -export), for go/types to read.
func exportData(t *testing.T, pkgs ...string) map[string]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	cmd := exec.Command(goTool, append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, pkgs...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), "\t"); ok && file != "" {
			m[path] = file
		}
	}
	return m
}

// typeCheck parses the non-test files of the package in dir and
// type-checks them against exports.
func typeCheck(t *testing.T, dir string, exports map[string]string) (*token.FileSet, []*ast.File, *types.Info) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		// The files of this platform only (input_unix.go or input_windows.go).
		if ok, err := build.Default.MatchFile(dir, filepath.Base(name)); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, os.ErrNotExist
		}
		return os.Open(file)
	})
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(module+"/"+dir, fset, files, info); err != nil {
		t.Fatalf("type-checking %s: %v", dir, err)
	}
	return fset, files, info
}
