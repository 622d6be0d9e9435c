package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeCapacity is the capacity of pipe r (Linux's F_GETPIPE_SZ).
func pipeCapacity(r *os.File) (int, error) {
	return unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0)
}

// pipeBuffered is how many bytes pipe r holds (FIONREAD, Linux's TIOCINQ).
func pipeBuffered(r *os.File) (int, error) {
	return unix.IoctlGetInt(int(r.Fd()), unix.TIOCINQ)
}
