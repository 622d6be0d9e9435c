// Package testdir gives a test a temporary directory that is removed when
// the test ends, on every OS the tests run on, Wine 8 included.
//
// On Unix it is t.TempDir. On Windows, t.TempDir's cleanup is os.RemoveAll,
// which deletes each file with FILE_DISPOSITION_POSIX_SEMANTICS; Wine 8
// answers that with "Invalid function" (not one of the answers Go falls
// back on), so every test using t.TempDir fails at cleanup under Wine. Here
// the directory is removed entry by entry with os.Remove (DeleteFile and
// RemoveDirectory), which Wine and Windows both do.
package testdir

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// New returns a new directory for t, removed with what it holds when t
// and its subtests end.
func New(t testing.TB) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == '*' || r == '?' || r == '"' || r == '<' || r == '>' || r == '|' {
			return '_'
		}
		return r
	}, t.Name())
	dir, err := os.MkdirTemp("", name+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := RemoveTree(dir); err != nil {
			t.Errorf("removing the test's directory: %v", err)
		}
	})
	return dir
}

// RemoveTree removes dir and what it holds, deepest first, with os.Remove
// (which Wine 8 does, where os.RemoveAll fails); a link is removed, never
// followed. It goes on past an entry it cannot remove and returns the
// first error.
func RemoveTree(dir string) error {
	entries, err := os.ReadDir(dir)
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	if err != nil {
		keep(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if err := RemoveTree(p); err != nil {
				keep(err)
			}
		} else if err := os.Remove(p); err != nil {
			keep(err)
		}
	}
	if err := os.Remove(dir); err != nil {
		keep(err)
	}
	return first
}
