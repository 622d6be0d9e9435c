package durable

import "golang.org/x/sys/unix"

// datasync makes the data of the new file fd durable: on macOS fsync(2)
// only hands it to the drive, F_FULLFSYNC has the drive write it (what Go's
// File.Sync does), and fsync is the fallback where the file system has no
// F_FULLFSYNC.
func datasync(fd int) error {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_FULLFSYNC, 0); err == nil {
		return nil
	}
	return unix.Fsync(fd)
}
