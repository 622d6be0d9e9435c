package durable

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// errNoTmpfile: the system or the file system makes no unnamed files.
var errNoTmpfile = errors.New("no O_TMPFILE")

// openTmpfile opens a new unnamed file (O_TMPFILE, mode 0600) in dir: the
// inode a first write fills, syncs and only then links at the path, and
// which the kernel frees if the process dies first. errNoTmpfile where the
// kernel (before 3.11: EISDIR) or the file system (EOPNOTSUPP) has none.
func openTmpfile(dir string) (*os.File, error) {
	f, err := os.OpenFile(dir, unix.O_TMPFILE|os.O_RDWR, 0o600)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
		return nil, errNoTmpfile
	}
	return f, err
}

// linkTmpfile links the unnamed file f at path; an error that is
// fs.ErrExist when a file is there. linkat(AT_EMPTY_PATH) links it
// directly (since Linux 6.10 for the process that opened it; before, with
// CAP_DAC_READ_SEARCH); else it is linked through its /proc/self/fd name,
// as open(2) documents.
func linkTmpfile(f *os.File, path string) error {
	err := control(f, func(fd int) error {
		err := ignoringEINTR(func() error { return unix.Linkat(fd, "", unix.AT_FDCWD, path, unix.AT_EMPTY_PATH) })
		if err == unix.ENOENT || err == unix.EPERM {
			err = ignoringEINTR(func() error {
				return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
			})
		}
		return err
	})
	if err != nil {
		return &os.LinkError{Op: "link", Old: "(unnamed file)", New: path, Err: err}
	}
	return nil
}

// datasync makes the data of the new file f durable with the metadata
// that finds it (fdatasync(2): its size and blocks).
func datasync(f *os.File) error {
	return control(f, func(fd int) error { return ignoringEINTR(func() error { return unix.Fdatasync(fd) }) })
}

// control calls do with the descriptor of f, for the system calls os
// does not make (linkat, fdatasync).
func control(f *os.File, do func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var derr error
	if err := rc.Control(func(fd uintptr) { derr = do(int(fd)) }); err != nil {
		return err
	}
	return derr
}

// ignoringEINTR calls f until it returns something else than EINTR.
func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}
