package writepolicy

// TestReplaceDevice makes nodes with Linux's numbers of /dev/null and
// /dev/full: it is Linux's alone.

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A character device is written through: never replaced (its inode
// stays), and a failed write is an error. The devices are the test's own
// (the numbers of /dev/null and /dev/full, made in its temp dir), never
// the machine's: a bug of the kind this test catches would replace those
// for the whole machine.
func TestReplaceDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a device node of its own (mknod) needs root")
	}
	dir := t.TempDir()
	null, full := filepath.Join(dir, "null"), filepath.Join(dir, "full")
	for p, minor := range map[string]uint32{null: 3, full: 7} {
		if err := unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(1, minor))); err != nil {
			t.Skipf("mknod: %v (a container without CAP_MKNOD)", err)
		}
	}
	var before, after syscall.Stat_t
	syscall.Stat(null, &before)
	if err := Replace(null, []byte("x"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	syscall.Stat(null, &after)
	if before.Ino != after.Ino || after.Mode&syscall.S_IFMT != syscall.S_IFCHR {
		t.Errorf("the null device was replaced")
	}
	err := Replace(full, []byte("x"), 0o600, nil)
	if !errors.Is(err, unix.ENOSPC) {
		t.Errorf("the full device: %v, want ENOSPC", err)
	}
	s, err := Open(full)
	if err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("line\n"))
	if _, err := s.Write([]byte("line\n")); !errors.Is(err, unix.ENOSPC) || !errors.Is(s.Err(), unix.ENOSPC) {
		t.Errorf("stream on the full device: %v, %v", err, s.Err())
	}
	s.Close()
	if fi, err := os.Lstat(full); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the full device was replaced: %v, %v", fi, err)
	}
}
