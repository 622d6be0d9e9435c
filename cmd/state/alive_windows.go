package state

import (
	"errors"

	"golang.org/x/sys/windows"
)

// processAlive reports whether pid names a live process (state show tells
// a running attempt from one whose process died). Windows has no signal
// 0: the process is alive while its handle is not signalled.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		// Denied: it lives, another user's (as EPERM on Unix); else gone.
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == uint32(windows.WAIT_TIMEOUT)
}
