//go:build unix

package writepolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A scratch directory is where Replace prepares a file before it puts it
// at its path: .BASE.tmp-PID-N beside the path, mode 0700, of the
// effective user, locked (flock) while the write lasts. Only its owner
// (and root) can change what is in it, whoever else may write the
// directory around it: what a rename takes out of the path lands there,
// where it can be looked at and put back without another writer swapping
// it meanwhile (replaceAt). A write killed in the middle (kill -9) leaves
// its scratch directory; the next Replace of the same path sweeps it.
type scratch struct {
	parent int    // the directory of the path
	name   string // the scratch directory's name in parent
	fd     int    // the scratch directory, locked
}

// scratchFile is the name of the file in a scratch directory.
const scratchFile = "f"

// scratchPrefix starts the name of every scratch directory of base.
func scratchPrefix(base string) string { return "." + base + ".tmp-" }

// newScratch makes a scratch directory for base in parent.
func newScratch(parent int, base string) (*scratch, error) {
	for try := 0; ; try++ {
		name := scratchPrefix(base) + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(uint64(rand.Uint32()), 36)
		err := unix.Mkdirat(parent, name, 0o700)
		if errors.Is(err, unix.EEXIST) && try < 100 {
			continue
		}
		if err != nil {
			return nil, err
		}
		fd, err := openDir(parent, name)
		if err == nil {
			err = ownPrivateDir(fd)
		}
		if err != nil {
			if fd >= 0 {
				unix.Close(fd)
			}
			_ = unix.Unlinkat(parent, name, unix.AT_REMOVEDIR)
			return nil, err
		}
		// Locked at once: a sweep running now skips it (its PID is alive
		// too, which the sweep checks first).
		if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			unix.Close(fd)
			return nil, err
		}
		return &scratch{parent: parent, name: name, fd: fd}, nil
	}
}

// openDir opens the directory name in parent, never through a link.
func openDir(parent int, name string) (int, error) {
	return unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// ownPrivateDir checks that fd is a directory of the effective user that
// only they can write: the scratch directory made, not one another user
// put at its name in between.
func ownPrivateDir(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		return errors.New("the temporary directory was replaced by another one")
	}
	return nil
}

// create makes the scratch file holding data with permissions perm, and
// returns its inode.
func (s *scratch) create(data []byte, perm fs.FileMode) (uint64, error) {
	fd, err := unix.Openat(s.fd, scratchFile, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return 0, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(s.name, scratchFile))
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	var ino uint64
	if err == nil {
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		ino = uint64(st.Ino)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return ino, err
}

// fileType is the type of the file name in dir (S_IFREG, S_IFCHR, …) and
// its inode, not following a link; 0 when there is none.
func fileType(dir int, name string) (uint32, uint64) {
	var st unix.Stat_t
	if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return 0, 0
	}
	return uint32(st.Mode) & unix.S_IFMT, uint64(st.Ino)
}

// remove removes the scratch directory with its file, when that is a
// regular file; anything else in it stays, and so does the directory
// (kept reports whether it did).
func (s *scratch) remove() (kept bool) {
	defer unix.Close(s.fd)
	if typ, _ := fileType(s.fd, scratchFile); typ == unix.S_IFREG {
		_ = unix.Unlinkat(s.fd, scratchFile, 0)
	} else if typ != 0 {
		return true
	}
	_ = unix.Unlinkat(s.parent, s.name, unix.AT_REMOVEDIR)
	return false
}

// sweep removes the scratch directories of base in parent that no live
// write holds: the leftovers of writes killed in the middle. A directory
// is left alone while the process its name carries is alive (but this
// one), or while it is locked (a write of this process, or of a process of
// another PID namespace); its regular file is
// removed, and anything else in it (what the killed write had just taken
// out of the path to look at) is put back at the path when the path is
// free. Problems are not errors: what cannot be swept now is swept later.
func sweep(parent *os.File, base string) {
	prefix := scratchPrefix(base)
	names, _ := parent.Readdirnames(-1)
	pfd := int(parent.Fd())
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		pid, _, _ := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(pid); err != nil || n <= 0 || (n != os.Getpid() && alive(n)) {
			continue // a live write's, or not ours (this process's are told by their lock)
		}
		fd, err := openDir(pfd, name)
		if err != nil {
			continue
		}
		if ownPrivateDir(fd) != nil || unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
			unix.Close(fd)
			continue
		}
		s := &scratch{parent: pfd, name: name, fd: fd}
		if typ, _ := fileType(fd, scratchFile); typ != 0 && typ != unix.S_IFREG {
			_ = renameNoReplace(fd, scratchFile, pfd, base)
		}
		s.remove()
	}
}

// alive reports whether process pid exists (kill(pid, 0) finds it).
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// typeName names a file type (of fileType) in a message.
func typeName(typ uint32) string {
	switch typ {
	case unix.S_IFCHR:
		return "character device"
	case unix.S_IFBLK:
		return "block device"
	case unix.S_IFIFO:
		return "FIFO"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFLNK:
		return "symbolic link"
	case unix.S_IFDIR:
		return "directory"
	}
	return fmt.Sprintf("file of type %#o", typ)
}

// replaceRegular writes data as the whole content of path, a regular file
// or a missing one: in a scratch directory beside it, then put at the path
// (place), never replacing an inode that is not a regular file, even one
// that another writer of the directory swaps in meanwhile.
func replaceRegular(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	parent, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer parent.Close()
	sweep(parent, base)
	s, err := newScratch(int(parent.Fd()), base)
	if err != nil {
		return err
	}
	ino, err := s.create(data, perm)
	if err == nil {
		err = s.place(base, ino)
	}
	s.remove()
	return err
}

// placeByRename is place where the kernel or the file system has no
// renameat2 exchange: the path is checked, then renamed over, and a
// writer that swaps a special file in between the two is not seen.
func (s *scratch) placeByRename(base string) error {
	if typ, _ := fileType(s.parent, base); typ != 0 && typ != unix.S_IFREG {
		return fmt.Errorf("it became a %s while it was written; not replaced", typeName(typ))
	}
	return unix.Renameat(s.fd, scratchFile, s.parent, base)
}
