//go:build unix

// Package writepolicy is how retry writes every file it writes for the
// user (--report, --log-file, the CI files $GITHUB_OUTPUT and
// $GITHUB_STEP_SUMMARY), with the rules of `curl -o` and `tee`:
//
//   - a regular file or a missing path is replaced atomically (a file in a
//     scratch directory beside it, then a rename) by Replace, appended to by
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
// No write ever replaces an inode that is not a regular file, even when
// another writer of the directory swaps names while retry writes (see
// replaceRegular, openRegular and pin; docs/processes-and-output.md says
// what remains). Opening a
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
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
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
	typ  fs.FileMode // through: the type of the file it leads to
	mode fs.FileMode // a regular file's permissions, 0 when it does not exist
	// own is the descriptor of retry's own that the path names (/dev/stdout
	// is 1, /dev/fd/3 is 3), 0 for any other path: such a file (but a pipe)
	// is written through a duplicate of the descriptor, so that the writes
	// share its open file description, offset included (see ownFD).
	own int
}

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// resolve says where path leads and how it is written.
func resolve(path string) (target, error) {
	if path == "" {
		return target{}, errors.New("empty path")
	}
	if isFDPath(path) {
		return throughTarget(path, path)
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
				return throughTarget(path, to)
			}
			p = to
		default:
			return throughTarget(path, p)
		}
	}
	return target{}, &fs.PathError{Op: "open", Path: path, Err: unix.ELOOP}
}

// throughTarget is a path written through; what it leads to (followed by
// the kernel, magic links of /proc included) says whether opening it may
// wait for a reader. fdPath is path, or the /dev/fd/N path its last link
// names: whether it is one of retry's own descriptors.
func throughTarget(path, fdPath string) (target, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return target{}, err
	}
	if fi.IsDir() {
		return target{}, fmt.Errorf("%s is a directory; want a file to write", path)
	}
	t := target{path: path, kind: through, fifo: fi.Mode()&fs.ModeNamedPipe != 0, typ: fi.Mode().Type()}
	if !t.fifo {
		t.own = ownFD(fdPath)
	}
	return t, nil
}

// ownFD returns the descriptor of retry's own that path names, 0 when it
// names none: /dev/stdout (1), /dev/stderr (2), /dev/fd/N,
// /proc/self/fd/N, /proc/thread-self/fd/N and /proc/PID/fd/N with retry's
// PID, when N is open. Opening such a path makes a new open file
// description with an offset of its own (on Linux), so that writes through
// it would overwrite what retry writes to the descriptor itself
// (`retry run --log-file /dev/stdout … > out.txt`); the same descriptor,
// duplicated, shares the offset, and a socket behind it, which cannot be
// opened at all, can be written. /dev/stdin (0) is not retry's to write:
// it is opened as any other path. Pipes are opened anew all the same
// (a FIFO sink's writes get a deadline, which a blocking descriptor of the
// caller's cannot take), which changes nothing: a pipe has no offset.
func ownFD(path string) int {
	p := filepath.Clean(path)
	var n string
	switch {
	case p == "/dev/stdout":
		return 1
	case p == "/dev/stderr":
		return 2
	case strings.HasPrefix(p, "/dev/fd/"):
		n = p[len("/dev/fd/"):]
	case strings.HasPrefix(p, "/proc/"):
		proc, rest, _ := strings.Cut(p[len("/proc/"):], "/")
		fd, ok := strings.CutPrefix(rest, "fd/")
		if !ok || (proc != "self" && proc != "thread-self" && proc != strconv.Itoa(os.Getpid())) {
			return 0
		}
		n = fd
	default:
		return 0
	}
	fd, err := strconv.Atoi(n)
	if err != nil || fd <= 0 {
		return 0
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		return 0 // not open: the path fails to open as it would
	}
	return fd
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
		if err := unix.Access(t.path, unix.W_OK); err != nil {
			return &fs.PathError{Op: "open", Path: t.path, Err: err}
		}
		return nil
	}
	dir, base := filepath.Split(t.path)
	if dir == "" {
		dir = "."
	}
	err = probe(dir, base)
	if err != nil {
		return fmt.Errorf("cannot write %s in %s: %v", base, filepath.Clean(dir), unwrapPath(err))
	}
	return nil
}

// probe makes and removes a scratch directory for base in dir: what
// Replace will need.
func probe(dir, base string) error {
	parent, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer parent.Close()
	s, err := newScratch(int(parent.Fd()), base)
	if err != nil {
		return err
	}
	s.remove()
	return nil
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
	if err := replaceRegular(t.path, data, perm); err != nil {
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
	f, err := openRegular(t.path, os.O_APPEND, perm)
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

// openRegular opens path, a regular file or a missing one (created with
// perm), for writing with flag (os.O_APPEND, os.O_TRUNC): never through a
// symbolic link, never waiting on a FIFO, and only when what it opened is
// a regular file. resolve found one there; another writer of the
// directory may have swapped something else in since, which is refused,
// not written or truncated.
func openRegular(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|flag&^os.O_TRUNC, perm)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENXIO) {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("it became a symbolic link or a FIFO while it was opened; not written")}
	}
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, err
	}
	if typ := uint32(st.Mode) & unix.S_IFMT; typ != unix.S_IFREG {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("it became a %s while it was opened; not written", typeName(typ))}
	}
	if flag&os.O_TRUNC != 0 {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}
