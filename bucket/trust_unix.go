//go:build linux || darwin || freebsd || netbsd || openbsd

package bucket

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNonBlock keeps the open of a FIFO from waiting for a writer.
const openNonBlock = unix.O_NONBLOCK

// isSymlinkLoop reports the error of an O_NOFOLLOW open of a symlink.
func isSymlinkLoop(err error) bool { return errors.Is(err, unix.ELOOP) }

// checkStateDir refuses a state directory that is not a directory or not
// this user's, and makes one this user owns private (0700).
func checkStateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		// A symlink to a directory of ours is how many set up ~/.local;
		// judge what it points to.
		if fi, err = os.Stat(dir); err != nil {
			return fmt.Errorf("state directory: %w", err)
		}
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: state directory %s is not a directory", ErrUntrusted, dir)
	}
	if err := owned(fi, "state directory "+dir); err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("%w: state directory %s has mode %04o and cannot be made private: %v", ErrUntrusted, dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// checkStateFile refuses an open state file that is not a regular file or
// not this user's, and makes one this user owns private (0600).
func checkStateFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file (%s); remove it", ErrUntrusted, f.Name(), kind(fi.Mode()))
	}
	if err := owned(fi, f.Name()); err != nil {
		return err
	}
	if fi.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("%w: %s has mode %04o and cannot be made private: %v", ErrUntrusted, f.Name(), fi.Mode().Perm(), err)
		}
	}
	return nil
}

// owned refuses what another user owns: root running a state planted by
// nobody must not let nobody decide its retries.
func owned(fi os.FileInfo, what string) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("%w: %s is owned by uid %d, not by this user (uid %d)", ErrUntrusted, what, st.Uid, uid)
	}
	return nil
}

func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}
