//go:build unix

package plan

import (
	"os"
	"syscall"
)

// setBlocking clears O_NONBLOCK on f, which openRegular opened with it.
func setBlocking(f *os.File) { _ = syscall.SetNonblock(int(f.Fd()), false) }

// defaultStateDir: on Unix the XDG rule of StateDir applies.
func defaultStateDir() (string, bool) { return "", false }
