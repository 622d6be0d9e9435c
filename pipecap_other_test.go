//go:build unix && !linux

package main

import (
	"errors"
	"os"
)

// pipeCapacity: only Linux says a pipe's capacity (F_GETPIPE_SZ); the
// scripts that wait for a full pipe skip elsewhere.
func pipeCapacity(r *os.File) (int, error) {
	return 0, errors.New("waitfull: a pipe's capacity is read with Linux's F_GETPIPE_SZ")
}

func pipeBuffered(r *os.File) (int, error) { return pipeCapacity(r) }
