//go:build unix

package durable_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/retry-dev/retry/runner/durable"
)

// The lock is held for the whole invocation, across the writes that
// replace the file: a second Lock is busy until the first is closed, and
// then reads what the first wrote. The first write makes the missing
// directories, 0700.
func TestLockSurvivesWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "dir", "s.json")
	a, err := durable.Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if a.Exists() {
		t.Fatal("a file before the first write")
	}
	if err := a.Write(sampleState()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Dir(path), filepath.Dir(filepath.Dir(path))} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", p, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v after the first write, want 0600", fi.Mode().Perm())
	}
	if _, err := durable.Lock(path); !errors.Is(err, durable.ErrBusy) {
		t.Fatalf("second Lock after the first write: %v, want busy", err)
	}
	st := sampleState()
	st.Attempts, st.History[0].Attempt = 2, 2
	if err := a.Write(st); err != nil {
		t.Fatal(err)
	}
	if _, err := durable.Lock(path); !errors.Is(err, durable.ErrBusy) {
		t.Fatalf("second Lock after a rename: %v, want busy", err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the state alone", len(entries))
	}
	a.Close()
	b, err := durable.Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.Read()
	if err != nil || got.Attempts != 2 {
		t.Fatalf("read %+v, %v; want 2 attempts", got, err)
	}
	if err := b.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after Remove: %v", err)
	}
}

// Two invocations that both find no file: the first to write creates it,
// the second is busy.
func TestCreateRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	a, _ := durable.Lock(path)
	b, _ := durable.Lock(path)
	if err := a.Write(sampleState()); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(sampleState()); !errors.Is(err, durable.ErrBusy) {
		t.Fatalf("second creation: %v, want busy", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the state alone", len(entries))
	}
}

// A Lock taken on a file that its holder then replaced and released is
// dropped and taken again on the new file.
func TestLockFollowsReplacement(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	a, _ := durable.Lock(path)
	if err := a.Write(sampleState()); err != nil {
		t.Fatal(err)
	}
	a.Close()
	b, _ := durable.Lock(path)
	st := sampleState()
	st.Attempts, st.History[0].Attempt = 5, 5
	b.Write(st)
	b.Remove()
	b.Close()
	c, err := durable.Lock(path)
	if err != nil || c.Exists() {
		t.Fatalf("after removal: exists %v, %v", c != nil && c.Exists(), err)
	}
}

// What is not a private regular file of ours is refused, never followed,
// never blocked on.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, nil, 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{link: "symbolic link", fifo: "FIFO", dir: "directory"} {
		_, err := durable.Lock(path)
		var r *durable.RefusedError
		if !errors.As(err, &r) || !strings.Contains(err.Error(), want) {
			t.Errorf("Lock(%s): %v, want refused: %s", filepath.Base(path), err, want)
		}
		if _, err := durable.ReadFile(path); !errors.As(err, &r) {
			t.Errorf("ReadFile(%s): %v, want refused", filepath.Base(path), err)
		}
	}
	if os.Geteuid() == 0 {
		foreign := filepath.Join(dir, "foreign")
		os.WriteFile(foreign, nil, 0o600)
		os.Chown(foreign, 65534, 65534)
		_, err := durable.Lock(foreign)
		if err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Errorf("Lock(foreign): %v, want refused: owned by uid 65534", err)
		}
	}
}

// Read refuses a corrupt file with a *CorruptError; the lock still holds,
// so that reset can remove it.
func TestReadCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(path, []byte("{\"version\": 1, "), 0o600)
	fl, err := durable.Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	_, err = fl.Read()
	var c *durable.CorruptError
	if !errors.As(err, &c) {
		t.Fatalf("Read: %v, want corrupt", err)
	}
	if err := fl.Remove(); err != nil {
		t.Fatal(err)
	}
}

// The first write of an invocation that found a state removes the
// temporary files that killed writes left (nobody holds their lock), and
// only those of its own state: a temporary file a live write holds, and
// another state's, stay. (A first write of a new state makes no named
// file where the system has O_TMPFILE, so a kill leaves nothing to sweep
// there.)
func TestWriteSweepsDeadTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	first, err := durable.Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Write(sampleState()); err != nil {
		t.Fatal(err)
	}
	first.Close()
	for _, n := range []string{".s.json.tmp-1", ".s.json.tmp-22", ".other.json.tmp-3", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	live, err := os.OpenFile(filepath.Join(dir, ".s.json.tmp-live"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := syscall.Flock(int(live.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	fl, err := durable.Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	if err := fl.Write(sampleState()); err != nil {
		t.Fatal(err)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, " "), ".other.json.tmp-3 .s.json.tmp-live notes.txt s.json"; got != want {
		t.Errorf("after the write the directory holds %s; want %s", got, want)
	}
}
