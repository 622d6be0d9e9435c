//go:build unix

package writepolicy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"golang.org/x/sys/unix"
)

// maxPlaceTries bounds the tries of place against a path that keeps
// changing.
const maxPlaceTries = 8

// place puts the scratch file (inode ino) at base: renamed there when
// nothing is there (RENAME_NOREPLACE), else exchanged with what is there
// (RENAME_EXCHANGE), which lands in the scratch directory, where no other
// writer can reach it. A regular file there was the old content, which
// remove then removes; anything else (a device, a FIFO, a socket, a
// link, a directory, which another writer swapped in since the path was
// resolved) is put back at once, and the write is refused. Nothing is
// ever renamed over, so no inode at the path is unlinked but a regular
// file. A file system without the flags (EINVAL) gets placeByRename.
func (s *scratch) place(base string, ino uint64) error {
	for range maxPlaceTries {
		err := unix.Renameat2(s.fd, scratchFile, s.parent, base, unix.RENAME_NOREPLACE)
		if err == nil || !errors.Is(err, unix.EEXIST) {
			return s.orByRename(base, err)
		}
		err = unix.Renameat2(s.fd, scratchFile, s.parent, base, unix.RENAME_EXCHANGE)
		if errors.Is(err, unix.ENOENT) {
			continue // gone meanwhile: placed without replacing, next try
		}
		if err != nil {
			return s.orByRename(base, err)
		}
		typ, _ := fileType(s.fd, scratchFile)
		if typ == 0 || typ == unix.S_IFREG {
			return nil // the old content: remove removes it
		}
		return s.putBack(base, typ, ino)
	}
	return errors.New("the path kept changing while it was written; not replaced")
}

// orByRename returns err, or, when the file system has no renameat2 flags,
// what placeByRename does.
func (s *scratch) orByRename(base string, err error) error {
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return s.placeByRename(base)
	}
	return err
}

// putBack puts the special file (of type typ) that place took out of the
// path back, exchanging it with what the path holds now: the written file
// (inode ino), or, when another writer changed the path meanwhile, what
// they put there (a regular file is removed with the scratch directory; a
// special file is put back in turn). The write is refused either way.
func (s *scratch) putBack(base string, typ uint32, ino uint64) error {
	refused := fmt.Errorf("it became a %s while it was written; put back, not replaced", typeName(typ))
	for range maxPlaceTries {
		err := unix.Renameat2(s.fd, scratchFile, s.parent, base, unix.RENAME_EXCHANGE)
		if errors.Is(err, unix.ENOENT) {
			if renameNoReplace(s.fd, scratchFile, s.parent, base) == nil {
				return refused
			}
			continue
		}
		if err != nil {
			break
		}
		if t, i := fileType(s.fd, scratchFile); t == 0 || t == unix.S_IFREG || i == ino {
			return refused
		}
	}
	return fmt.Errorf("it became a %s while it was written; that file is kept in %s", typeName(typ), s.name)
}

// renameNoReplace moves old to new unless new exists.
func renameNoReplace(olddir int, old string, newdir int, new string) error {
	return unix.Renameat2(olddir, old, newdir, new, unix.RENAME_NOREPLACE)
}

// pin holds the file at path, which resolve found of type typ (a FIFO, a
// device, a socket, a regular file behind /dev/fd/N), through an O_PATH
// descriptor (nothing opened for reading or writing, no reader waited
// for), and returns the name that opens that very file, /proc/self/fd/N,
// whatever another writer of its directory renames meanwhile: a FIFO
// that became a regular file is never written over, a device that became
// a FIFO never waited on, and Abort opens the read side of the same FIFO.
// Without /proc, the path itself. A file of another type is refused.
func pin(path string, typ fs.FileMode) (string, io.Closer, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st, via unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || modeType(st.Mode) != typ {
		unix.Close(fd)
		return "", nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("it changed while it was opened; not written")}
	}
	p := "/proc/self/fd/" + strconv.Itoa(fd)
	if unix.Stat(p, &via) != nil || via.Ino != st.Ino || via.Dev != st.Dev {
		unix.Close(fd)
		return path, nil, nil
	}
	return p, fdCloser(fd), nil
}

// modeType is the fs.FileMode type of a stat mode.
func modeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return 0
}

// fdCloser closes a descriptor.
type fdCloser int

func (c fdCloser) Close() error { return unix.Close(int(c)) }
