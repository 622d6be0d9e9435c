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
