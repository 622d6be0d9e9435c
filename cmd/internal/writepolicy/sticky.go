//go:build unix

package writepolicy

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// stickyOwner refuses a file planted by another user: the symbolic link,
// FIFO or regular file p (fi, from Lstat) in a sticky directory that
// others may write, owned by neither the caller (its effective user) nor
// the directory's owner. That is what the kernel refuses with
// fs.protected_symlinks=1 (following such a link), protected_fifos and
// protected_regular (opening such a FIFO or file with O_CREAT), the
// default of systemd; retry resolves links itself, so the kernel never
// sees them. A device or a socket is left to the kernel.
func stickyOwner(p string, fi fs.FileInfo) error {
	m := fi.Mode()
	if !(m.IsRegular() || m&fs.ModeSymlink != 0 || m&fs.ModeNamedPipe != 0) {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	euid := uint32(os.Geteuid())
	if st.Uid == euid {
		return nil
	}
	dir := filepath.Dir(p)
	di, err := os.Stat(dir)
	if err != nil {
		return nil // Lstat found p in it: a race; the write will fail on its own
	}
	ds, ok := di.Sys().(*syscall.Stat_t)
	if !ok || di.Mode()&fs.ModeSticky == 0 || di.Mode().Perm()&0o002 == 0 || ds.Uid == st.Uid {
		return nil
	}
	what, sysctl := "file", "regular"
	switch {
	case m&fs.ModeSymlink != 0:
		what, sysctl = "symbolic link", "symlinks"
	case m&fs.ModeNamedPipe != 0:
		what, sysctl = "FIFO", "fifos"
	}
	return fmt.Errorf("%s is a %s of user %d in %s, a sticky directory others may write: refused, as the kernel's fs.protected_%s does (another user may have planted it)",
		p, what, st.Uid, dir, sysctl)
}
