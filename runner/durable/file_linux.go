package durable

import (
	"errors"
	"strconv"

	"golang.org/x/sys/unix"
)

// errNoTmpfile: the system or the file system makes no unnamed files.
var errNoTmpfile = errors.New("no O_TMPFILE")

// openTmpfile opens a new unnamed file (O_TMPFILE, mode 0600) in dir: the
// inode a first write fills, syncs and only then links at the path, and
// which the kernel frees if the process dies first. errNoTmpfile where the
// kernel (before 3.11: EISDIR) or the file system (EOPNOTSUPP) has none.
func openTmpfile(dir string) (int, error) {
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
		return err
	})
	switch err {
	case nil:
		return fd, nil
	case unix.EOPNOTSUPP, unix.EISDIR, unix.EINVAL:
		return -1, errNoTmpfile
	}
	return -1, err
}

// linkTmpfile links the unnamed file fd at path; EEXIST when a file is
// there. linkat(AT_EMPTY_PATH) links it directly (since Linux 6.10 for the
// process that opened it; before, with CAP_DAC_READ_SEARCH); else it is
// linked through its /proc/self/fd name, as open(2) documents.
func linkTmpfile(fd int, path string) error {
	err := ignoringEINTR(func() error { return unix.Linkat(fd, "", unix.AT_FDCWD, path, unix.AT_EMPTY_PATH) })
	if err == unix.ENOENT || err == unix.EPERM {
		err = ignoringEINTR(func() error {
			return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
		})
	}
	return err
}

// datasync makes the data of the new file fd durable with the metadata
// that finds it (fdatasync(2): its size and blocks).
func datasync(fd int) error { return unix.Fdatasync(fd) }
