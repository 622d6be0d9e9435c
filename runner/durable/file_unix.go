//go:build unix

package durable

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

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
//
// File works on bare descriptors (privatefile.OpenFD), not *os.File: a few
// small reads and writes need no poller registration, and a first-attempt
// success then costs lstat, open, flock, write, fdatasync, link, unlink and
// close — nothing else.
type File struct {
	path string
	fd   int             // the locked inode at path; -1 while there is none
	st   *syscall.Stat_t // fd's fstat when Lock opened it
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
		fd, st, err := openChecked(path)
		if err == errNoFile {
			return &File{path: path, fd: -1}, nil
		}
		if err != nil {
			return nil, err
		}
		if err := privatefile.TryLockFD(fd, path); err != nil {
			syscall.Close(fd)
			if errors.Is(err, privatefile.ErrWouldBlock) {
				return nil, ErrBusy
			}
			return nil, err
		}
		if privatefile.SameStat(st, path) {
			return &File{path: path, fd: fd, st: st, leftovers: true}, nil
		}
		syscall.Close(fd) // replaced or removed by the invocation that held it: again
	}
	return nil, ErrBusy
}

// Read returns the state held at the path, nil when there is none, a
// *RefusedError when the file is not private (group or others may read or write
// it: not state to trust), or a *CorruptError.
func (fl *File) Read() (*State, error) {
	if fl.fd < 0 {
		return nil, nil
	}
	if fl.st != nil {
		if err := privatefile.CheckPrivateStat(fl.path, fl.st); err != nil {
			return nil, refused(err)
		}
	}
	size := int64(4096) // a state this invocation wrote
	if fl.st != nil {
		size = fl.st.Size
	}
	b, err := readAll(fl.fd, fl.path, size)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// readAll reads the file fd from its start, size bytes as fstat saw it
// and whatever follows, up to maxFileSize (a *CorruptError past it).
func readAll(fd int, path string, size int64) ([]byte, error) {
	b := make([]byte, 0, min(max(size, 0), maxFileSize)+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		var n int
		err := ignoringEINTR(func() (err error) {
			n, err = syscall.Pread(fd, b[len(b):cap(b)], int64(len(b)))
			return err
		})
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		b = b[:len(b)+n]
		if len(b) > maxFileSize {
			return nil, &CorruptError{fmt.Sprintf("larger than %d bytes", maxFileSize)}
		}
		if n == 0 {
			return b, nil
		}
	}
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
	if fl.fd < 0 {
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
	fd, err := openTmpfile(dir)
	if errors.Is(err, syscall.ENOENT) {
		if err := MakeDir(fl.path); err != nil {
			return err
		}
		fd, err = openTmpfile(dir)
	}
	if errors.Is(err, errNoTmpfile) {
		return fl.createNamed(b)
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	if err := fill(fd, dir, b); err != nil {
		syscall.Close(fd)
		return err
	}
	switch err := linkTmpfile(fd, fl.path); {
	case err == nil:
		fl.fd = fd
		return nil
	case err == syscall.EEXIST:
		syscall.Close(fd)
		return ErrBusy // another invocation created it first
	case err == syscall.ENOENT:
		// Neither linkat(AT_EMPTY_PATH) nor /proc/self/fd is there to
		// name it (or the directory went away): a named file then.
		syscall.Close(fd)
		return fl.createNamed(b)
	default:
		syscall.Close(fd)
		return &os.LinkError{Op: "link", Old: "(unnamed file)", New: fl.path, Err: err}
	}
}

// createNamed is create through a named temporary file, linked at the
// path and then unlinked; a later sweep removes it if this invocation is
// killed in between.
func (fl *File) createNamed(b []byte) error {
	fl.leftovers = true
	fd, tmp, err := fl.temp(b)
	if err != nil {
		return err
	}
	err = ignoringEINTR(func() error { return syscall.Link(tmp, fl.path) })
	_ = syscall.Unlink(tmp) // if it stays, the next write's sweep removes it
	if err != nil {
		syscall.Close(fd)
		if err == syscall.EEXIST || err == syscall.ENOENT {
			return ErrBusy // another invocation created it first (and swept ours)
		}
		return &os.LinkError{Op: "link", Old: tmp, New: fl.path, Err: err}
	}
	fl.fd = fd
	return nil
}

// replace renames a temporary file holding b over the state this
// invocation holds; the new inode, locked, is then the one held.
func (fl *File) replace(b []byte) error {
	fd, tmp, err := fl.temp(b)
	if err != nil {
		return err
	}
	if err := ignoringEINTR(func() error { return syscall.Rename(tmp, fl.path) }); err != nil {
		_ = syscall.Unlink(tmp) // if it stays, the next write's sweep removes it
		syscall.Close(fd)
		return &os.LinkError{Op: "rename", Old: tmp, New: fl.path, Err: err}
	}
	syscall.Close(fl.fd)
	fl.fd = fd
	return nil
}

// temp makes a temporary file .FILE.tmp-N in the state's directory (made
// when missing) holding b, locked and synced (fill), and returns it.
func (fl *File) temp(b []byte) (fd int, name string, err error) {
	dir, base := fl.split()
	for try := 0; ; try++ {
		name = filepath.Join(dir, tempPrefix(base)+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err = ignoringEINTR(func() (err error) {
			fd, err = syscall.Open(name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0o600)
			return err
		})
		if err == syscall.ENOENT && try == 0 {
			if err := MakeDir(fl.path); err != nil {
				return -1, "", err
			}
			continue
		}
		if err == syscall.EEXIST && try < 100 {
			continue
		}
		if err != nil {
			return -1, "", &os.PathError{Op: "open", Path: name, Err: err}
		}
		break
	}
	if err := fill(fd, name, b); err != nil {
		_ = syscall.Unlink(name) // if it stays, the next write's sweep removes it
		syscall.Close(fd)
		return -1, "", err
	}
	return fd, name, nil
}

// fill locks the new file fd — at once, so that a sweep by the holder of
// the state's lock tells this live write from a dead one's leftovers, and
// so that the file is locked before it appears at the path — writes b to
// it and syncs its data (datasync).
func fill(fd int, name string, b []byte) error {
	// A file system without Unix permissions (vfat, a Windows drive under
	// WSL, some CIFS and FUSE mounts) shows a file made 0600 as 0755 or
	// 0777: every later invocation would refuse it as not private, so
	// the sequence is refused now, before its first attempt.
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "fstat", Path: name, Err: err}
	}
	if err := privatefile.CheckPrivateStat(name, &st); err != nil {
		return &RefusedError{filepath.Dir(name), fmt.Sprintf("is on a file system that does not keep a file private (one made 0600 shows mode %04o): give a --state path on a file system with Unix permissions", st.Mode&0o777)}
	}
	if err := privatefile.TryLockFD(fd, name); err != nil {
		if errors.Is(err, privatefile.ErrWouldBlock) {
			return ErrBusy // swept and taken over in between
		}
		return err
	}
	for len(b) > 0 {
		var n int
		err := ignoringEINTR(func() (err error) {
			n, err = syscall.Write(fd, b)
			return err
		})
		if err != nil {
			return &os.PathError{Op: "write", Path: name, Err: err}
		}
		b = b[n:]
	}
	if err := ignoringEINTR(func() error { return datasync(fd) }); err != nil {
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
	for _, n := range readDirNames(dir) {
		if !strings.HasPrefix(n, prefix) {
			continue
		}
		p := filepath.Join(dir, n)
		fd, st, err := openChecked(p)
		if err != nil {
			continue
		}
		if privatefile.TryLockFD(fd, p) == nil && privatefile.SameStat(st, p) {
			_ = syscall.Unlink(p) // what stays is removed later
		}
		syscall.Close(fd)
	}
}

// readDirNames lists the names in dir; nothing when it cannot be read.
func readDirNames(dir string) []string {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var names []string
	buf := make([]byte, dirBufSize)
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return names
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// dirBufSize is readDirNames' buffer: a variable, so that the buffer is
// on the heap — on the stack, its 8 KiB frame would make the runtime copy
// the main goroutine's stack to a larger one.
var dirBufSize = 8192

// Remove removes the state file, still holding its lock. Without a file it
// does nothing. Nothing is synced: a power loss right after may bring back
// the state written before the attempt, whose next invocation then counts
// the attempt as unfinished, as for a crash during it.
func (fl *File) Remove() error {
	if fl.fd < 0 {
		return nil
	}
	if err := syscall.Unlink(fl.path); err != nil && err != syscall.ENOENT {
		return &os.PathError{Op: "remove", Path: fl.path, Err: err}
	}
	return nil
}

// Exists reports whether a state file was at the path when it was locked
// or written.
func (fl *File) Exists() bool { return fl.fd >= 0 }

// Close releases the lock.
func (fl *File) Close() error {
	if fl.fd < 0 {
		return nil
	}
	err := syscall.Close(fl.fd)
	fl.fd = -1
	if err != nil {
		return &os.PathError{Op: "close", Path: fl.path, Err: err}
	}
	return nil
}

// ReadFile reads the state at path without locking it (retry state show):
// writes are atomic, so it sees one whole state. It refuses what Lock
// refuses; a state that is not private it reads (to be shown, so that its
// owner can decide), where Read refuses it. No file: nil, nil.
func ReadFile(path string) (*State, error) {
	fd, st, err := openChecked(path)
	if err == errNoFile {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	b, err := readAll(fd, path, st.Size)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// openChecked opens path for reading (privatefile.OpenFD) and refuses,
// with a *RefusedError, anything but a regular file owned by the effective
// user. The path is looked at first, so that a socket is refused rather
// than failing to open, and a device is never opened. No file, or no
// directory: errNoFile.
func openChecked(path string) (int, *syscall.Stat_t, error) {
	var st syscall.Stat_t
	if err := ignoringEINTR(func() error { return syscall.Lstat(path, &st) }); err != nil {
		if err == syscall.ENOENT {
			return -1, nil, errNoFile
		}
		return -1, nil, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	if err := privatefile.CheckStat(path, &st); err != nil {
		return -1, nil, refused(err)
	}
	fd, fst, err := privatefile.OpenFD(path, syscall.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return -1, nil, errNoFile // removed since
		}
		return -1, nil, refused(err)
	}
	return fd, fst, nil
}

// errNoFile is openChecked's error when there is no file at the path. (A
// comparison, not errors.Is: that would look up interface methods of the
// error's types at run time, on every invocation.)
var errNoFile = errors.New("no file")

// ignoringEINTR calls f until it returns something else than EINTR.
func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
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
	case r.Exposed:
		return &RefusedError{r.Path, fmt.Sprintf("has mode %04o: group or others may read or write it, and retry trusts only a private state (chmod 600 it if you trust what it holds)", r.Mode)}
	}
	return &RefusedError{r.Path, fmt.Sprintf("is owned by uid %d, not by you (uid %d): retry keeps its state in files of its own; remove it or give another path", r.Owner, r.Me)}
}
