//go:build linux || darwin || freebsd || netbsd || openbsd

package privatefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpenRefusesWhatIsNotAPrivateRegularFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")
	if err := os.WriteFile(file, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]Refusal{
		link: {Path: link, Symlink: true},
		fifo: {Path: fifo, Kind: "a FIFO"},
		dir:  {Path: dir, Kind: "a directory", Dir: true},
	} {
		_, err := Open(path, os.O_RDONLY, 0)
		r, ok := IsRefusal(err)
		if !ok || *r != want {
			t.Errorf("Open(%s) = %v, want the refusal %+v", filepath.Base(path), err, want)
		}
	}
	f, err := Open(file, os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("Open of a private regular file of ours: %v", err)
	}
	f.Close()
	// A file of ours that group or others may read or write opens (a
	// reset may remove it) and CheckPrivate refuses it, from its mode as
	// Stat saw it; the owner's own bits are the owner's business.
	for _, mode := range []os.FileMode{0o640, 0o604, 0o620, 0o602, 0o666, 0o700, 0o400} {
		if err := os.Chmod(file, mode); err != nil {
			t.Fatal(err)
		}
		want := Refusal{Path: file, Exposed: true, Mode: mode}
		if mode&0o077 == 0 {
			want = Refusal{}
		}
		f, err := Open(file, os.O_RDONLY, 0)
		if err != nil {
			t.Fatalf("mode %04o: Open: %v", mode, err)
		}
		fi, err := f.Stat()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		err = CheckPrivate(file, fi.Mode())
		r, _ := IsRefusal(err)
		switch {
		case want == Refusal{} && err != nil:
			t.Errorf("mode %04o: CheckPrivate: %v, want no refusal", mode, err)
		case want != Refusal{} && (r == nil || *r != want):
			t.Errorf("mode %04o: CheckPrivate: %v, want the refusal %+v", mode, err, want)
		}
	}
	if got := (&Refusal{Path: "p", Exposed: true, Mode: 0o644}).Error(); got != "p has mode 0644: not private" {
		t.Errorf("Error() = %q", got)
	}
}

func TestLockIsExclusiveAcrossOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scope.json")
	a, err := Open(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := Lock(a); err != nil {
		t.Fatal(err)
	}
	if err := TryLock(b); !errors.Is(err, ErrWouldBlock) {
		t.Errorf("TryLock while another open file holds the lock: %v, want ErrWouldBlock", err)
	}
	a.Close()
	if err := TryLock(b); err != nil {
		t.Errorf("TryLock once the holder closed: %v", err)
	}
	if !Same(b, path) {
		t.Errorf("Same: the path still names the file")
	}
	if err := os.Rename(path, path+".old"); err != nil {
		t.Fatal(err)
	}
	if Same(b, path) {
		t.Errorf("Same after the file was moved away")
	}
}
