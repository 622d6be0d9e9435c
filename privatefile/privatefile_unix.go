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

// private is the permission a private file may have: its owner's alone.
const private os.FileMode = 0o700

// CheckPrivate returns a *Refusal (Exposed) when perm, the permission bits
// of the file at path, give group or others any permission; nil otherwise.
func CheckPrivate(path string, perm os.FileMode) error {
	if perm.Perm()&^private != 0 {
		return &Refusal{Path: path, Exposed: true, Mode: perm.Perm()}
	}
	return nil
}

// Open opens path with flag (and perm when it creates it) without following
// a symbolic link and without blocking on a FIFO, and returns it only when
// it is a regular file of the effective user (a *Refusal otherwise). A
// file created by Open is this user's, with mode perm.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|oNoFollow|oNonBlock, perm)
	if err != nil {
		if isSymlinkLoop(err) {
			return nil, &Refusal{Path: path, Symlink: true}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = Check(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func lockFile(f *os.File, nonBlocking bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = flock(int(fd), f.Name(), nonBlocking) }); err != nil {
		return err
	}
	return ferr
}
