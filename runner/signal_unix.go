//go:build unix

package runner

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// SignalName is the name of sig as kill -l says it ("SIGTERM").
func SignalName(sig syscall.Signal) string { return unix.SignalName(sig) }
