package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writePolicyHome is the package that writes, renames and removes files on
// the user's behalf; no other package of the presentation layer (cmd/ and
// its subpackages) may call the os functions that do.
const writePolicyHome = "cmd/internal/writepolicy"

// fileWriters are the os functions that create, write, rename or remove a
// file.
var fileWriters = map[string]bool{"Create": true, "OpenFile": true, "Rename": true, "Remove": true, "RemoveAll": true, "WriteFile": true}

// writeExceptions are the calls the write policy has not taken over yet,
// as "file: function", each with the reason it is still there. The list
// only shrinks: a call that is not here fails the test.
var writeExceptions = map[string]string{
	"cmd/internal/plan/input.go: os.OpenFile": "openRegular opens a flag's file read-only (O_NONBLOCK, so that a FIFO is refused, not waited for): a read, not a write",
}

// TestFileWritesGoThroughTheWritePolicy parses every non-test Go file of
// cmd/ and its subpackages outside the write policy, and fails on a call of
// os.Create, os.OpenFile, os.Rename, os.Remove(All) or os.WriteFile that
// writeExceptions does not list, and on an exception that no longer
// happens.
func TestFileWritesGoThroughTheWritePolicy(t *testing.T) {
	seen := map[string]bool{}
	err := filepath.WalkDir("cmd", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		p = filepath.ToSlash(p)
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasPrefix(p, writePolicyHome) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" && fileWriters[sel.Sel.Name] {
				key := p + ": os." + sel.Sel.Name
				seen[key] = true
				if _, ok := writeExceptions[key]; !ok {
					t.Errorf("%s: a file written, renamed or removed outside %s: call the write policy", key, writePolicyHome)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range writeExceptions {
		if !seen[key] {
			t.Errorf("writeExceptions lists %s, which no longer happens: remove it", key)
		}
	}
}

// maxAnyFileLines is the size of the largest Go file anywhere in the
// module, tests included: a file a person can hold in mind. A file that
// grows past it is split by idea (the analysis apart from the decoder, the
// process's life apart from its start), not cut at a line count.
const maxAnyFileLines = 700

// TestFileSizes fails when a Go file of the module, test files included,
// passes maxAnyFileLines.
func TestFileSizes(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != "." && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if n := strings.Count(string(src), "\n"); n > maxAnyFileLines {
			t.Errorf("%s: %d lines, want at most %d: split it by idea", p, n, maxAnyFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The size limits of the presentation layer: the cmd package itself stays
// the wiring of cobra to the options and of outcomes to exit statuses, and
// no file or struct of cmd/ and its subpackages grows into a room of its
// own.
const (
	maxCmdLines    = 1500 // non-test lines of package cmd
	maxFileLines   = 400  // lines of a file of cmd/ or its subpackages
	maxStructField = 20   // fields of a struct type there
)

// TestPresentationLayerSizes fails when the cmd package passes
// maxCmdLines, a file of cmd/ or its subpackages passes maxFileLines, or a
// struct there has more than maxStructField fields.
func TestPresentationLayerSizes(t *testing.T) {
	cmdLines := 0
	err := filepath.WalkDir("cmd", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n := strings.Count(string(src), "\n")
		if n > maxFileLines {
			t.Errorf("%s: %d lines, want at most %d: split it by idea", p, n, maxFileLines)
		}
		test := strings.HasSuffix(p, "_test.go")
		if filepath.Dir(p) == "cmd" && !test {
			cmdLines += n
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				fields := 0
				for _, f := range st.Fields.List {
					fields += max(len(f.Names), 1)
				}
				if fields > maxStructField {
					t.Errorf("%s: struct %s has %d fields, want at most %d: group them", p, ts.Name.Name, fields, maxStructField)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cmdLines > maxCmdLines {
		t.Errorf("package cmd: %d non-test lines, want at most %d: move what is not wiring into a subpackage", cmdLines, maxCmdLines)
	}
}
