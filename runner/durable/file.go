package durable

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/retry-dev/retry/privatefile"
)

// File is a state file locked for the whole invocation.
//
// The lock is an exclusive flock on the inode at the path. Every write
// makes a new inode, locked from its creation, with the whole state in it,
// synced, and only then puts it at the path, so that the path always names
// a locked inode holding a whole state while the invocation runs. A state
// created from nothing is linked into place (an O_TMPFILE inode, which has
// no name until then, where the system has them), which fails if another
// invocation created one first: that one holds it (ErrBusy). A state that
// is there is replaced by renaming a temporary file of the same directory
// (.FILE.tmp-N) over it. Lock verifies, once it holds a lock, that the path
// still names the inode it locked (an invocation that replaced or removed
// it may have ended in between) and starts over if not.
type File struct {
	path string
	f    *os.File    // the locked inode at path; nil while there is none
	fi   os.FileInfo // f's Stat when Lock opened it
	// leftovers: there may be temporary files that killed writes left
	// behind (the state was there when it was locked, or a write used a
	// named temporary file): the first write sweeps them.
	leftovers, swept bool
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
// (ErrBusy when another invocation holds it). No file at path, or no
// directory, is not an error: the first Write creates them (MakeDir).
func Lock(path string) (*File, error) {
	for range 100 {
		f, fi, err := openChecked(path)
		if errors.Is(err, errNoFile) {
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
			return &File{path: path, f: f, fi: fi, leftovers: true}, nil
		}
		f.Close() // replaced or removed by the invocation that held it: again
	}
	return nil, ErrBusy
}

// Read returns the state held at the path, nil when there is none, a
// *RefusedError when the file is not private (group or others may read or write
// it: not state to trust), or a *CorruptError.
func (fl *File) Read() (*State, error) {
	if fl.f == nil {
		return nil, nil
	}
	if fl.fi != nil {
		if err := privatefile.CheckPrivate(fl.path, fl.fi.Mode()); err != nil {
			return nil, refused(err)
		}
	}
	b, err := readAll(fl.f)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// readAll reads f from its start, up to maxFileSize (a *CorruptError
// past it).
func readAll(f *os.File) ([]byte, error) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFileSize {
		return nil, &CorruptError{fmt.Sprintf("larger than %d bytes", maxFileSize)}
	}
	return b, nil
}

// maxFileSize bounds what Read and ReadFile read: a state with a full
// history is some 40 KiB.
const maxFileSize = 1 << 20

// Write replaces the state at the path with s, atomically: a new inode
// (mode 0600, locked from its creation) in the same directory gets the
// whole state, its data synced, and is then linked at the path when there
// was no file (ErrBusy if one appeared meanwhile) or renamed over it. One
// sync per write, the one an atomic replacement needs: whatever name a
// crash leaves, it names a whole state.
//
// The sync is fdatasync(2): the inode is new and written once, so what it
// must make durable — the data, and the size and block map that find the
// data — is what fdatasync syncs; fsync would add only the inode's times.
// The directory is not synced: a process that dies (kill -9, a crash)
// never loses a write; a machine that loses power within the file system's
// commit interval (5 s on ext4) may come back with the state before the
// write. Missing directories are made (MakeDir) when the first write finds
// none. The first write of an invocation that found a state, or that used
// a named temporary file, also removes the temporary files that
// invocations killed in the middle of a write left behind (sweep); an
// unnamed O_TMPFILE inode leaves nothing behind.
func (fl *File) Write(s *State) error {
	b, err := Encode(s)
	if err != nil {
		return err
	}
	if fl.f == nil {
		err = fl.create(b)
	} else {
		err = fl.replace(b)
	}
	if err != nil {
		return err
	}
	if fl.leftovers && !fl.swept {
		fl.swept = true
		fl.sweep()
	}
	return nil
}

// create puts the first state at the path: an unnamed inode linked there
// once whole and synced, or, where the system makes none, a named
// temporary file linked there and unlinked.
func (fl *File) create(b []byte) error {
	dir, _ := fl.split()
	f, err := openTmpfile(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := MakeDir(fl.path); err != nil {
			return err
		}
		f, err = openTmpfile(dir)
	}
	if errors.Is(err, errNoTmpfile) {
		return fl.createNamed(b)
	}
	if err != nil {
		return err
	}
	if err := fill(f, dir, b); err != nil {
		f.Close()
		return err
	}
	switch err := linkTmpfile(f, fl.path); {
	case err == nil:
		fl.f = f
		return nil
	case errors.Is(err, fs.ErrExist):
		f.Close()
		return ErrBusy // another invocation created it first
	case errors.Is(err, fs.ErrNotExist):
		// Neither linkat(AT_EMPTY_PATH) nor /proc/self/fd is there to
		// name it (or the directory went away): a named file then.
		f.Close()
		return fl.createNamed(b)
	default:
		f.Close()
		return err
	}
}

// createNamed is create through a named temporary file, linked at the
// path and then unlinked; a later sweep removes it if this invocation is
// killed in between.
func (fl *File) createNamed(b []byte) error {
	fl.leftovers = true
	f, tmp, err := fl.temp(b)
	if err != nil {
		return err
	}
	err = os.Link(tmp, fl.path)
	_ = syscall.Unlink(tmp) // if it stays, the next write's sweep removes it
	if err != nil {
		f.Close()
		if errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrNotExist) {
			return ErrBusy // another invocation created it first (and swept ours)
		}
		return err
	}
	fl.f = f
	return nil
}

// replace renames a temporary file holding b over the state this
// invocation holds; the new inode, locked, is then the one held.
func (fl *File) replace(b []byte) error {
	f, tmp, err := fl.temp(b)
	if err != nil {
		return err
	}
	if err := renameOver(f, tmp, fl.path, fl.f); err != nil {
		_ = syscall.Unlink(tmp) // if it stays, the next write's sweep removes it
		f.Close()
		return err
	}
	fl.f.Close()
	fl.f, fl.fi = f, nil
	return nil
}

// temp makes a temporary file .FILE.tmp-N in the state's directory (made
// when missing) holding b, locked and synced (fill), and returns it.
func (fl *File) temp(b []byte) (f *os.File, name string, err error) {
	dir, base := fl.split()
	for try := 0; ; try++ {
		name = filepath.Join(dir, tempPrefix(base)+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err = createTemp(name)
		if errors.Is(err, fs.ErrNotExist) && try == 0 {
			if err := MakeDir(fl.path); err != nil {
				return nil, "", err
			}
			continue
		}
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		break
	}
	if err := fill(f, name, b); err != nil {
		_ = syscall.Unlink(name) // if it stays, the next write's sweep removes it
		f.Close()
		return nil, "", err
	}
	return f, name, nil
}

// fill locks the new file f — at once, so that a sweep by the holder of
// the state's lock tells this live write from a dead one's leftovers, and
// so that the file is locked before it appears at the path — writes b to
// it and syncs its data (datasync).
func fill(f *os.File, name string, b []byte) error {
	// A file system without Unix permissions (vfat, a Windows drive under
	// WSL, some CIFS and FUSE mounts) shows a file made 0600 as 0755 or
	// 0777: every later invocation would refuse it as not private, so
	// the sequence is refused now, before its first attempt.
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := privatefile.CheckPrivate(name, fi.Mode()); err != nil {
		return &RefusedError{filepath.Dir(name), fmt.Sprintf("is on a file system that does not keep a file private (one made 0600 shows mode %04o): give a --state path on a file system with Unix permissions", fi.Mode().Perm())}
	}
	if err := privatefile.TryLock(f); err != nil {
		if errors.Is(err, privatefile.ErrWouldBlock) {
			return ErrBusy // swept and taken over in between
		}
		return err
	}
	if _, err := f.Write(b); err != nil {
		return err
	}
	if err := datasync(f); err != nil {
		return &os.PathError{Op: "sync", Path: name, Err: err}
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
// (each is locked from its creation): the leftovers of invocations killed
// in the middle of a write. Call it holding the state's lock. Problems are
// not errors: what cannot be removed now is removed later.
func (fl *File) sweep() {
	dir, base := fl.split()
	prefix := tempPrefix(base)
	entries, _ := os.ReadDir(dir) // what cannot be read is swept later
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, _, err := openChecked(p)
		if err != nil {
			continue
		}
		if privatefile.TryLock(f) == nil && privatefile.Same(f, p) {
			_ = syscall.Unlink(p) // what stays is removed later
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
	if err := syscall.Unlink(fl.path); err != nil && err != syscall.ENOENT {
		return &os.PathError{Op: "remove", Path: fl.path, Err: err}
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
// refuses; a state that is not private it reads (to be shown, so that its
// owner can decide), where Read refuses it. No file: nil, nil.
func ReadFile(path string) (*State, error) {
	f, _, err := openChecked(path)
	if errors.Is(err, errNoFile) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := readAll(f)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// openChecked opens path for reading (privatefile.Open) and refuses, with
// a *RefusedError, anything but a regular file owned by the effective
// user. The path is looked at first, so that a socket is refused rather
// than failing to open, and a device is never opened. No file, or no
// directory: errNoFile.
func openChecked(path string) (*os.File, os.FileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, errNoFile
	}
	if err != nil {
		return nil, nil, err
	}
	if err := privatefile.Check(path, fi); err != nil {
		return nil, nil, refused(err)
	}
	f, err := privatefile.Open(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, errNoFile // removed since
	}
	if err != nil {
		return nil, nil, refused(err)
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// errNoFile is openChecked's error when there is no file at the path.
var errNoFile = errors.New("no file")

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
	case r.Exposed && r.Grantee != "": // Windows: its DACL
		return &RefusedError{r.Path, r.Exposure() + ": others may read or write it, and retry trusts only a private state"}
	case r.Exposed:
		return &RefusedError{r.Path, fmt.Sprintf("has mode %04o: group or others may read or write it, and retry trusts only a private state (chmod 600 it if you trust what it holds)", r.Mode)}
	}
	return &RefusedError{r.Path, fmt.Sprintf("is owned by %s, not by you (%s): retry keeps its state in files of its own; remove it or give another path", r.OwnerText(), r.MeText())}
}
