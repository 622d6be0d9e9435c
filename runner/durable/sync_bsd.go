//go:build unix && !linux && !darwin

package durable

import "golang.org/x/sys/unix"

// datasync makes the data of the new file fd durable (fsync(2)).
func datasync(fd int) error { return unix.Fsync(fd) }
