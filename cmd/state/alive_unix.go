//go:build unix

package state

import (
	"errors"
	"os"
	"syscall"
)

// processAlive reports whether pid names a live process (state show tells
// a running attempt from one whose process died).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
