//go:build linux || darwin || freebsd || netbsd || openbsd

package bucket

import (
	"os"

	"golang.org/x/sys/unix"
)

// openNoFollow refuses a symlink planted at a scope file's path.
const openNoFollow = unix.O_NOFOLLOW

// lockFile takes an exclusive flock on f, waiting for it. Closing f
// releases it.
func lockFile(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lerr = unix.Flock(int(fd), unix.LOCK_EX)
			if lerr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if lerr != nil {
		return &os.PathError{Op: "flock", Path: f.Name(), Err: lerr}
	}
	return nil
}
