//go:build unix

package writepolicy

import "golang.org/x/sys/unix"

const (
	oNoCTTY   = unix.O_NOCTTY   // a terminal opened does not become retry's
	oNonBlock = unix.O_NONBLOCK // a FIFO without a reader: ENXIO at once
)

// errNoReader is what opening a FIFO without a reader (oNonBlock) fails
// with; errLoop what too many symbolic links fail with.
var errNoReader, errLoop error = unix.ENXIO, unix.ELOOP

// writable reports why the process may not write path (access(2), W_OK).
func writable(path string) error { return unix.Access(path, unix.W_OK) }

// isDevicePath: on Unix devices are files, found by Lstat.
func isDevicePath(string) bool { return false }
