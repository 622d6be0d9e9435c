//go:build unix

package durable

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/retry-dev/retry/privatefile"
)

// File is a state file locked for the whole invocation.
//
// The lock is an exclusive flock on the inode at the path. Every write
// replaces that inode (a temporary file in the same directory, fsync,
// rename), and the new inode is locked before it
// appears at the path, so the path always names a locked inode while the
// invocation runs. Lock verifies, once it holds a lock, that the path still
// names the inode it locked (an invocation that replaced or removed it may
// have ended in between) and starts over if not. A state created from
// nothing is linked into place, which fails if another invocation created
// one first: that one holds it (ErrBusy).
type File struct {
	path  string
	f     *os.File // the locked inode at path; nil while there is none
	swept bool     // the temporary files left by killed writes are removed
}

var _ Store = (*File)(nil)

// ErrBusy is returned when another invocation holds the state.
var ErrBusy = errors.New("busy: another retry is using this state")

// RefusedError is a path that does not hold a private regular file of the
// user running retry: a symbolic link, a FIFO, a directory, a device, or a
// file owned by another user.
type RefusedError struct{ Path, Problem string }

func (e *RefusedError) Error() string { return e.Path + ": " + e.Problem }

// MakeDir creates the missing directories of path with mode 0700 (and
// leaves existing ones as they are).
func MakeDir(path string) error {
	return os.MkdirAll(filepath.Dir(path), 0o700)
}

// Lock takes the exclusive lock of the state at path without waiting
// (ErrBusy when another invocation holds it). No file at path is not an
// error: the first Write creates it (in a directory that exists: MakeDir).
func Lock(path string) (*File, error) {
	for range 100 {
		f, err := openChecked(path)
		if errors.Is(err, os.ErrNotExist) {
			return &File{path: path}, nil
		}
		if err != nil {
			return nil, err
		}
		if err := privatefile.TryLock(f); err != nil {
			f.Close()
			if errors.Is(err, privatefile.ErrWouldBlock) {
				return nil, ErrBusy
			}
			return nil, err
		}
		if privatefile.Same(f, path) {
			return &File{path: path, f: f}, nil
		}
		f.Close() // replaced or removed by the invocation that held it: again
	}
	return nil, ErrBusy
}

// Read returns the state held at the path, nil when there is none, or a
// *CorruptError.
func (fl *File) Read() (*State, error) {
	if fl.f == nil {
		return nil, nil
	}
	if _, err := fl.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(fl.f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFileSize {
		return nil, &CorruptError{fmt.Sprintf("larger than %d bytes", maxFileSize)}
	}
	return Decode(b)
}

// maxFileSize bounds what Read and ReadFile read: a state with a full
// history is some 40 KiB.
const maxFileSize = 1 << 20

// Write replaces the state at the path with s, atomically: a temporary
// file (mode 0600, locked from its creation) in the same directory, its
// content synced, then renamed over the path (or linked, when there was no
// file: ErrBusy if one appeared meanwhile). One sync per write, the one an
// atomic replacement needs: whatever name a crash leaves, it names a whole
// state. The directory is not synced: a process that dies (kill -9, a
// crash) never loses a write; a machine that loses power within the file
// system's commit interval (5 s on ext4) may come back with the state
// before the write. The first write of an invocation also removes the
// temporary files that invocations killed in the middle of a write left
// behind (sweep).
func (fl *File) Write(s *State) error {
	b, err := Encode(s)
	if err != nil {
		return err
	}
	dir, base := fl.split()
	tmp, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// Locked at once, so that a sweep by the holder of the state's lock
	// tells this live write from a dead one's leftovers.
	if err := privatefile.TryLock(tmp); err != nil {
		if errors.Is(err, privatefile.ErrWouldBlock) {
			return ErrBusy // swept and taken over in between
		}
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if fl.f == nil {
		if err := os.Link(tmp.Name(), fl.path); err != nil {
			if errors.Is(err, os.ErrExist) || errors.Is(err, os.ErrNotExist) {
				return ErrBusy // another invocation created it first (and swept ours)
			}
			return err
		}
		os.Remove(tmp.Name())
	} else if err := os.Rename(tmp.Name(), fl.path); err != nil {
		return err
	}
	ok = true
	if fl.f != nil {
		fl.f.Close()
	}
	fl.f = tmp
	if !fl.swept {
		fl.swept = true
		fl.sweep()
	}
	return nil
}

// tempPrefix starts the name of every temporary file of the state base.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

func (fl *File) split() (dir, base string) {
	dir, base = filepath.Split(fl.path)
	if dir == "" {
		dir = "."
	}
	return dir, base
}

// sweep removes the temporary files of the state that no live write holds
// (Write locks each from its creation): the leftovers of invocations
// killed in the middle of a write. Call it holding the state's lock.
// Problems are not errors: what cannot be removed now is removed later.
func (fl *File) sweep() {
	dir, base := fl.split()
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	prefix := tempPrefix(base)
	for _, n := range names {
		if !strings.HasPrefix(n, prefix) {
			continue
		}
		p := filepath.Join(dir, n)
		f, err := openChecked(p)
		if err != nil {
			continue
		}
		if privatefile.TryLock(f) == nil && privatefile.Same(f, p) {
			os.Remove(p)
		}
		f.Close()
	}
}

// Remove removes the state file, still holding its lock. Without a file it
// does nothing. Nothing is synced: a power loss right after may bring back
// the state written before the attempt, whose next invocation then counts
// the attempt as unfinished, as for a crash during it.
func (fl *File) Remove() error {
	if fl.f == nil {
		return nil
	}
	if err := os.Remove(fl.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Exists reports whether a state file was at the path when it was locked
// or written.
func (fl *File) Exists() bool { return fl.f != nil }

// Close releases the lock.
func (fl *File) Close() error {
	if fl.f == nil {
		return nil
	}
	err := fl.f.Close()
	fl.f = nil
	return err
}

// ReadFile reads the state at path without locking it (retry state show):
// writes are atomic, so it sees one whole state. It refuses what Lock
// refuses. No file: nil, nil.
func ReadFile(path string) (*State, error) {
	f, err := openChecked(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fl := &File{path: path, f: f}
	return fl.Read()
}

// openChecked opens path for reading (privatefile.Open) and refuses,
// with a *RefusedError, anything but a regular file owned by the effective
// user. The path is looked at first, so that a socket is refused rather
// than failing to open.
func openChecked(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := refused(privatefile.Check(path, fi)); err != nil {
		return nil, err
	}
	f, err := privatefile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, refused(err)
	}
	return f, nil
}

// refused words a refusal of privatefile as a *RefusedError of a state
// file; other errors pass unchanged.
func refused(err error) error {
	r, ok := privatefile.IsRefusal(err)
	switch {
	case !ok:
		return err
	case r.Symlink:
		return &RefusedError{r.Path, "is a symbolic link; retry does not follow links for its state: give the file's real path"}
	case r.Kind == "a FIFO":
		return &RefusedError{r.Path, "is a FIFO, not a state file: give the path of a regular file"}
	case r.Dir:
		return &RefusedError{r.Path, "is a directory: give the path of a file in it"}
	case r.Kind != "":
		return &RefusedError{r.Path, "is not a regular file: give the path of a regular file"}
	}
	return &RefusedError{r.Path, fmt.Sprintf("is owned by uid %d, not by you (uid %d): retry keeps its state in files of its own; remove it or give another path", r.Owner, r.Me)}
}
