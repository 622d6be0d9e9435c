//go:build unix

package durable

import (
	"os"
	"syscall"
)

// createTemp creates the new temporary file name (mode 0600), failing when
// anything is there, a symbolic link included.
func createTemp(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
}

// renameOver puts the new file f (named tmp) at path, over the file held
// there: rename(2), atomic, the held file open all along.
func renameOver(f *os.File, tmp, path string, held *os.File) error {
	return os.Rename(tmp, path)
}
