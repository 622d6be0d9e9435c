package bucket

import (
	"os"

	"golang.org/x/sys/windows"
)

const openNoFollow = 0

// lockFile takes an exclusive lock on the first byte of f, waiting for it.
// Closing f releases it.
func lockFile(f *os.File) error {
	var ol windows.Overlapped
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol); err != nil {
		return &os.PathError{Op: "LockFileEx", Path: f.Name(), Err: err}
	}
	return nil
}
