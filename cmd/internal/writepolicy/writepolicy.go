// Package writepolicy is how retry writes every file it writes for the
// user (--report, --log-file, the CI files $GITHUB_OUTPUT and
// $GITHUB_STEP_SUMMARY), with the rules of `curl -o` and `tee`:
//
//   - a regular file or a missing path is replaced atomically (a temp file
//     in the same directory, then a rename) by Replace, appended to by
//     Append, truncated and written by Open;
//   - a symbolic link is followed, and the rule applied to its target (a
//     dangling link gets its target created);
//   - a FIFO, a character device, a socket and /dev/fd/N (/dev/stdout,
//     /proc/self/fd/N) are written through: opened for writing, never
//     created, renamed, truncated or removed;
//   - a directory is refused;
//   - in a sticky directory that others may write (/tmp), a symbolic
//     link, a FIFO or a regular file owned by neither the caller nor the
//     directory's owner is refused, as the kernel's fs.protected_symlinks,
//     protected_fifos and protected_regular refuse them: another user
//     could have planted it to make retry (as root) write where they
//     chose, or into their own file.
//
// No write ever replaces an inode that is not a regular file. Opening a
// FIFO never blocks the caller: without a reader it is opened in the
// background, and a write waits for the reader only until the sink is
// aborted (Stream.Abort, or the done channel of Replace and Append), which
// the run does when it ends or a signal arrives. State files (--state,
// scopes) are not output and do not use this package: they refuse symbolic
// links and special files.
package writepolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// kind is how a path is written.
type kind int

const (
	regular kind = iota // a regular file, or nothing yet: temp file and rename, append, truncate
	through             // a FIFO, a device, a socket, /dev/fd/N: opened for writing as it is
)

// target is where a path leads: the file to write (symbolic links
// followed) and how.
type target struct {
	path string // the file itself; for through, the path as given
	kind kind
	fifo bool        // through a FIFO or a pipe: opening it may wait for a reader
	mode fs.FileMode // a regular file's permissions, 0 when it does not exist
}

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// resolve says where path leads and how it is written.
func resolve(path string) (target, error) {
	if path == "" {
		return target{}, errors.New("empty path")
	}
	if isFDPath(path) || isDevicePath(path) {
		return throughTarget(path)
	}
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return target{path: p, kind: regular}, nil
		}
		if err != nil {
			return target{}, err
		}
		if err := stickyOwner(p, fi); err != nil {
			return target{}, err
		}
		switch m := fi.Mode(); {
		case m.IsRegular():
			return target{path: p, kind: regular, mode: m.Perm()}, nil
		case m.IsDir():
			return target{}, fmt.Errorf("%s is a directory; want a file to write", path)
		case m&fs.ModeSymlink != 0:
			to, err := os.Readlink(p)
			if err != nil {
				return target{}, err
			}
			if !filepath.IsAbs(to) {
				to = filepath.Join(filepath.Dir(p), to)
			}
			if isFDPath(to) {
				return throughTarget(path)
			}
			p = to
		default:
			return throughTarget(path)
		}
	}
	return target{}, &fs.PathError{Op: "open", Path: path, Err: errLoop}
}

// throughTarget is a path written through; what it leads to (followed by
// the kernel, magic links of /proc included) says whether opening it may
// wait for a reader.
func throughTarget(path string) (target, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return target{}, err
	}
	if fi.IsDir() {
		return target{}, fmt.Errorf("%s is a directory; want a file to write", path)
	}
	return target{path: path, kind: through, fifo: fi.Mode()&fs.ModeNamedPipe != 0}, nil
}

// isFDPath reports whether path names an open file descriptor: /dev/fd/N,
// /dev/stdout, /dev/stderr, /proc/self/fd/N, /proc/PID/fd/N. Such a path
// is always written through: its target is the descriptor's file (a pipe
// of `>(…)`, a terminal, a file the caller redirected), which is never
// replaced.
func isFDPath(path string) bool {
	p := filepath.Clean(path)
	switch p {
	case "/dev/stdout", "/dev/stderr", "/dev/stdin":
		return true
	}
	if strings.HasPrefix(p, "/dev/fd/") {
		return true
	}
	if rest, ok := strings.CutPrefix(p, "/proc/"); ok {
		_, fd, ok := strings.Cut(rest, "/")
		return ok && strings.HasPrefix(fd, "fd/")
	}
	return false
}

// Check makes sure path can be written before a run starts, so that a
// sink that cannot be written is a usage error with nothing run: a
// regular or missing path needs a writable directory (a temp file is
// created there and removed); a path written through needs write
// permission (a FIFO is not opened). A directory is refused.
func Check(path string) error {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.kind == through {
		if err := writable(t.path); err != nil {
			return &fs.PathError{Op: "open", Path: t.path, Err: err}
		}
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(t.path), "."+filepath.Base(t.path)+".tmp-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write %s in %s: %v", filepath.Base(t.path), filepath.Dir(t.path), err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// Replace writes data as the whole content of path: a regular or missing
// path (after symbolic links) through a temp file in its directory and a
// rename, so that a reader sees the old content or the new one, keeping an
// existing file's permissions (a new one gets perm); a path written
// through gets data written to it as is (a regular file behind /dev/fd/N is
// appended to: it is the caller's, open). Waiting for a FIFO's reader ends
// when done is closed (nil: never).
func Replace(path string, data []byte, perm fs.FileMode, done <-chan struct{}) error {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.kind == through {
		return writeThrough(t, data, done)
	}
	if t.mode != 0 {
		perm = t.mode
	}
	dir, base := filepath.Split(t.path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, t.path)
	}
	if err != nil {
		os.Remove(tmp)
		return &fs.PathError{Op: "write", Path: path, Err: unwrapPath(err)}
	}
	return nil
}

// Append appends data to path: a regular or missing path (after symbolic
// links) is created with perm when missing and appended to; a path written
// through gets data written to it. Waiting for a FIFO's reader ends when
// done is closed (nil: never).
func Append(path string, data []byte, perm fs.FileMode, done <-chan struct{}) error {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.kind == through {
		return writeThrough(t, data, done)
	}
	f, err := os.OpenFile(t.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
