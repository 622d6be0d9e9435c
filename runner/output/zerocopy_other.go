//go:build !linux

package output

import (
	"os"
	"syscall"
)

// sendFile is the kernel copy of sendfile_linux.go; elsewhere the caller
// copies (BSD and macOS sendfile(2) write only to sockets).
func sendFile(dst, src *os.File, off, n int64) (int64, bool, error) { return 0, false, nil }

// SpliceFrom is the kernel copy of zerocopy_linux.go: elsewhere it is never
// ok, and the caller reads and Writes.
func (c *Capture) SpliceFrom(rc syscall.RawConn, max int) (int, bool, error) { return 0, false, nil }
