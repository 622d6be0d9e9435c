//go:build linux || darwin || freebsd || netbsd || openbsd

package privatefile

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	oNoFollow = unix.O_NOFOLLOW // a symbolic link at the path fails the open (ELOOP)
	oNonBlock = unix.O_NONBLOCK // opening a FIFO with no writer does not wait
)

// errWouldBlock is a constant: ErrWouldBlock, a variable, then needs no
// code at start-up (GODEBUG=inittrace=1 lists none of retry's packages).
const errWouldBlock = unix.EWOULDBLOCK

func isSymlinkLoop(err error) bool { return errors.Is(err, unix.ELOOP) }

// flock takes the exclusive lock of the open file fd (named name, for the
// error), waiting for it unless nonBlocking, retrying when a signal
// interrupts the wait.
func flock(fd int, name string, nonBlocking bool) error {
	how := unix.LOCK_EX
	if nonBlocking {
		how |= unix.LOCK_NB
	}
	err := unix.Flock(fd, how)
	for err == unix.EINTR {
		err = unix.Flock(fd, how)
	}
	if err != nil {
		return &os.PathError{Op: "flock", Path: name, Err: err}
	}
	return nil
}

// ownerOf is the uid of the owner of fi; false where the system says
// nothing of owners.
func ownerOf(fi os.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
