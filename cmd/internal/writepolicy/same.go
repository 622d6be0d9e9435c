//go:build unix

package writepolicy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ID is the file a path is written to, as Identify found it, so that two
// paths that name one file can be told: the same inode when it exists,
// else the same place (directory, symbolic links resolved, and name).
type ID struct {
	place    string // the file's absolute path, its directory's links resolved
	dev, ino uint64 // the inode, when it exists
	exists   bool
	// Through: the path is written through (a device, a FIFO, a socket,
	// /dev/fd/N), never created, truncated or replaced.
	Through bool
	// Mode is the type of the existing file (0 for a regular file or none).
	Mode fs.FileMode
}

// Identify says which file path is written to: for a regular or missing
// path the file after symbolic links (as Replace, Append and Open write
// it), for a path written through the file it leads to.
func Identify(path string) (ID, error) {
	t, err := resolve(path)
	if err != nil {
		return ID{}, err
	}
	id := ID{Through: t.kind == through}
	p := t.path
	if !id.Through {
		dir, base := filepath.Split(p)
		if dir == "" {
			dir = "."
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		p = filepath.Join(dir, base)
	}
	id.place = p
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return id, nil
	}
	if err != nil {
		return ID{}, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino, id.exists = uint64(st.Dev), uint64(st.Ino), true
	}
	id.Mode = fi.Mode().Type()
	return id, nil
}

// FileID is the ID of an open file: what a path must not be written to
// when it is that file (retry's stdin).
func FileID(f *os.File) (ID, bool) {
	fi, err := f.Stat()
	if err != nil {
		return ID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ID{}, false
	}
	return ID{dev: uint64(st.Dev), ino: uint64(st.Ino), exists: true, Mode: fi.Mode().Type()}, true
}

// Same reports whether a and b are one file: one inode, or, when either
// does not exist yet, one place.
func (a ID) Same(b ID) bool {
	if a.exists && b.exists {
		return a.dev == b.dev && a.ino == b.ino
	}
	return a.place != "" && a.place == b.place
}

// Feeds reports whether what is written to the file can come back to a
// reader of it: a regular file (or a missing one), a FIFO or a pipe. A
// device, a socket or a terminal is only written to.
func (a ID) Feeds() bool {
	return a.Mode == 0 || a.Mode&fs.ModeNamedPipe != 0
}
