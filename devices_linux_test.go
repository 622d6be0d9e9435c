package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// mkdev makes path a character device with Linux's numbers dev.
func mkdev(path string, dev [2]uint32) error {
	if err := unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(dev[0], dev[1]))); err != nil {
		return &os.PathError{Op: "mknod", Path: path, Err: err}
	}
	return os.Chmod(path, 0o666) // past the umask
}
