//go:build unix

package file

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retry-dev/retry/internal/testdir"
)

// Unix's modes and symbolic links; Windows' DACLs and reparse points are
// privatefile's Windows tests.

func TestOpenScopePermissions(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(testdir.New(t), "state", "retry")
	s := openScope(t, dir, "deploy", 0)
	for path, want := range map[string]os.FileMode{
		filepath.Dir(dir):  0o700 | os.ModeDir,
		dir:                0o700 | os.ModeDir,
		s.Path():           0o600,
		dir + "/deploy.js": 0, // absent
	} {
		fi, err := os.Stat(path)
		if want == 0 {
			if err == nil {
				t.Errorf("%s exists", path)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
	// An existing directory of ours that others could read or write is
	// made private: what it holds is still ours (a file another user put
	// there is refused as theirs). A file of ours that others could read or
	// write is refused, and left as it is: what others could write is not a
	// bucket to trust.
	open := testdir.New(t)
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(open, "x.json"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(open, "x.json"), 0o666) // past the umask
	_, err := OpenScope(open, "x", ScopeOptions{Capacity: 0, Now: frozenClock})
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "x.json has mode 0666: group or others may read or write it") {
		t.Errorf("OpenScope of a 0666 file: %v, want it refused as untrusted", err)
	}
	if fi, _ := os.Stat(open); fi.Mode().Perm() != 0o700 {
		t.Errorf("existing dir mode is %v, want 0700", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Join(open, "x.json")); fi.Mode().Perm() != 0o666 {
		t.Errorf("refused file's mode is %v, want it left 0666", fi.Mode().Perm())
	}
}

func TestScopeRefusesSymlink(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "s.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenScope(dir, "s", ScopeOptions{Capacity: 0, Now: frozenClock}); err == nil {
		t.Error("OpenScope followed a symlink")
	}
}
