//go:build unix && !linux

package writepolicy

import (
	"io"
	"io/fs"

	"golang.org/x/sys/unix"
)

// place puts the scratch file at base: this system has no renameat2, so
// the path is checked and renamed over (placeByRename), and a special file
// another writer swaps in between the two is not seen.
func (s *scratch) place(base string, _ uint64) error { return s.placeByRename(base) }

// renameNoReplace moves old to new unless new exists: a link, then the
// old name removed.
func renameNoReplace(olddir int, old string, newdir int, new string) error {
	if err := unix.Linkat(olddir, old, newdir, new, 0); err != nil {
		return err
	}
	return unix.Unlinkat(olddir, old, 0)
}

// pin returns path: without O_PATH, a file written through is opened by
// its name.
func pin(path string, _ fs.FileMode) (string, io.Closer, error) { return path, nil, nil }
