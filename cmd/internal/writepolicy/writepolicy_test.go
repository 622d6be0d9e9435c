//go:build unix

package writepolicy

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A regular file is replaced (a new inode, its permissions kept); a missing
// one is created with perm; no temp file is left.
func TestReplaceRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	if err := Replace(p, []byte("one"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v, want 0600", fi.Mode())
	}
	os.Chmod(p, 0o640)
	if err := Replace(p, []byte("two"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "two" {
		t.Errorf("content %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the old 0640", fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left in the directory: %v", ents)
	}
}

// A symbolic link is followed: its target is replaced, the link stays a
// link; a dangling link gets its target created.
func TestReplaceSymlink(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.json"), filepath.Join(dir, "link.json")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink("real.json", link)
	if err := Replace(link, []byte("new"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", fi.Mode())
	}
	if got := read(t, real); got != "new" {
		t.Errorf("target holds %q", got)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "sub-missing.json"), dangling)
	if err := Append(dangling, []byte("a\n"), 0o644, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "sub-missing.json")); got != "a\n" {
		t.Errorf("dangling target holds %q", got)
	}
}

// A directory is refused, by Check too.
func TestDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := Replace(dir, []byte("x"), 0o600, nil); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Replace(dir) = %v", err)
	}
	if err := Check(dir); err == nil {
		t.Errorf("Check(dir) = nil")
	}
	if err := Check(filepath.Join(dir, "missing", "r.json")); err == nil {
		t.Errorf("Check in a missing directory = nil")
	}
	if err := Check(filepath.Join(dir, "r.json")); err != nil {
		t.Errorf("Check = %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Check left %v", ents)
	}
}

// /dev/fd/N of a pipe (as `>(jq .)` gives) is written through.
func TestFDPath(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skip("no /proc/self/fd")
	}
	got := make(chan string)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	if err := Replace(path, []byte("report\n"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if s := <-got; s != "report\n" {
		t.Errorf("the pipe got %q", s)
	}
}

// A FIFO without a reader does not block Open or Write: what is written is
// held, and lost when the run ends (Abort, Close) before a reader comes,
// which Close reports. The FIFO stays a FIFO.
func TestFIFONoReader(t *testing.T) {
	ff := filepath.Join(t.TempDir(), "ff")
	if err := unix.Mkfifo(ff, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ff)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write([]byte("x\n")); err != nil {
		t.Fatalf("a held write: %v", err)
	}
	s.Abort()
	if _, err := s.Write([]byte("y\n")); err == nil {
		t.Errorf("a write after Abort: nil")
	}
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "no reader opened the FIFO before the run ended (2 bytes lost)") {
		t.Errorf("Close: %v", err)
	}
	if fi, _ := os.Lstat(ff); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", fi.Mode())
	}
	// Nothing written, nothing lost.
	s, _ = Open(ff)
	if err := s.Close(); err != nil {
		t.Errorf("Close of an unused stream: %v", err)
	}
	// Replace waits for the reader until done.
	done := make(chan struct{})
	close(done)
	if err := Replace(ff, []byte("x"), 0o600, done); err == nil {
		t.Errorf("Replace on a FIFO without reader after done: nil")
	}
}

// A reader that comes later gets what was held, then the rest, in order.
func TestFIFOLateReader(t *testing.T) {
	ff := filepath.Join(t.TempDir(), "ff")
	if err := unix.Mkfifo(ff, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ff)
	if err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("one\n"))
	got := make(chan string)
	go func() {
		r, err := os.Open(ff)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(r)
		r.Close()
		got <- string(b)
	}()
	<-s.ready // the reader came
	if _, err := s.Write([]byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != "one\ntwo\n" {
		t.Errorf("reader got %q", g)
	}
}

// A reader that does not read: once aborted, a write that fills the pipe
// fails after the grace instead of blocking the run.
func TestFIFOStalledReader(t *testing.T) {
	ff := filepath.Join(t.TempDir(), "ff")
	if err := unix.Mkfifo(ff, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(ff, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := Open(ff)
	if err != nil {
		t.Fatal(err)
	}
	s.Abort()
	big := make([]byte, 1<<20) // more than a pipe holds
	if _, err := s.Write(big); err == nil {
		t.Errorf("a write nobody reads: nil")
	}
	s.Close()
}

// A descriptor of retry's own is written through a duplicate: a regular
// file at the offset retry's own writes share (no overwrite), and a socket,
// which a new open(2) of /proc/self/fd/N cannot open at all (ENXIO).
func TestOwnDescriptor(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	path := fmt.Sprintf("/dev/fd/%d", f.Fd())
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("one\n")
	s.Write([]byte("two\n"))
	f.WriteString("three\n")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, f.Name()); got != "one\ntwo\nthree\n" {
		t.Errorf("file holds %q, want the three lines in order", got)
	}

	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0) // SOCK_CLOEXEC is Linux's and the BSDs': this test runs nothing
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if err := Append(fmt.Sprintf("/proc/self/fd/%d", fds[0]), []byte("over a socket\n"), 0o644, nil); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 64)
	n, _ := unix.Read(fds[1], b)
	if got := string(b[:n]); got != "over a socket\n" {
		t.Errorf("socket got %q", got)
	}
	if ownFD("/dev/stdin") != 0 || ownFD("/proc/1/fd/1") != 0 && os.Getpid() != 1 {
		t.Errorf("/dev/stdin or another process's descriptor taken for retry's own")
	}
}
