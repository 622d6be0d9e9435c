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

// flock takes the exclusive lock of the open file fd (named name, for the
// error), waiting for it unless nonBlocking, retrying when a signal
// interrupts the wait.
func flock(fd int, name string, nonBlocking bool) error {
	how := unix.LOCK_EX
	if nonBlocking {
		how |= unix.LOCK_NB
	}
	if err := ignoringEINTR(func() error { return unix.Flock(fd, how) }); err != nil {
		return &os.PathError{Op: "flock", Path: name, Err: err}
	}
	return nil
}
