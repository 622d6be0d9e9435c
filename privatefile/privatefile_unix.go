//go:build linux || darwin || freebsd || netbsd || openbsd

package privatefile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

const (
	oNoFollow = unix.O_NOFOLLOW // a symbolic link at the path fails the open (ELOOP)
	oNonBlock = unix.O_NONBLOCK // opening a FIFO with no writer does not wait
)

var errWouldBlock error = unix.EWOULDBLOCK

func isSymlinkLoop(err error) bool { return errors.Is(err, unix.ELOOP) }

// flock takes the exclusive lock of f, waiting for it unless nonBlocking,
// retrying when a signal interrupts the wait.
func flock(f *os.File, nonBlocking bool) error {
	how := unix.LOCK_EX
	if nonBlocking {
		how |= unix.LOCK_NB
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if ferr = unix.Flock(int(fd), how); ferr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if ferr != nil {
		return &os.PathError{Op: "flock", Path: f.Name(), Err: ferr}
	}
	return nil
}
