package cmd

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal (golang.org/x/term, so on
// every platform it supports), without changing f's mode: the check runs on
// the raw descriptor, where f.Fd() would make f blocking. A nil f is not.
// The command source makes the same check of its stdin.
func isTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	rc.Control(func(fd uintptr) { tty = term.IsTerminal(int(fd)) })
	return tty
}
