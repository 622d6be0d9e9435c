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

// defaultShell runs --shell and a --shell --on-retry hook.
const defaultShell = "/bin/sh"

// shellArgv is how shell runs script: SHELL -c SCRIPT.
func shellArgv(shell, script string) []string { return []string{shell, "-c", script} }
