package writepolicy

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
)

// Windows has no controlling terminal to acquire and no FIFO that blocks
// its writer's open: a named pipe's client open fails at once when no
// instance waits.
const (
	oNoCTTY   = 0
	oNonBlock = 0
)

// errNoReader never comes on Windows (see oNonBlock): a pipe without a
// server fails to open, and the sink's error says so.
// errLoop is ERROR_CANT_RESOLVE_FILENAME, Windows' word for too many
// reparse points.
var (
	errNoReader       = errors.New("no reader")
	errLoop     error = syscall.Errno(1921)
)

// writable: Windows has no access(2); a device or pipe written through is
// opened when written, and a failure then is the sink's error (exit 74).
func writable(string) error { return nil }

// stickyOwner: Windows has no sticky directories; who may plant a file
// where is the directory's DACL.
func stickyOwner(string, fs.FileInfo) error { return nil }

// isDevicePath reports whether path names a device or a pipe rather than
// a file: the reserved DOS device names (NUL, CON, CONOUT$, COM1, …, with
// or without an extension or a directory before them, as Windows reads
// them) and the device namespace (\\.\pipe\NAME, \\.\CON, \\?\…). They
// are written through, never replaced.
func isDevicePath(path string) bool {
	p := strings.ReplaceAll(path, "/", `\`)
	if strings.HasPrefix(p, `\\.\`) || strings.HasPrefix(p, `\\?\`) && !strings.Contains(p[4:], `:`) {
		return true
	}
	base := strings.ToUpper(filepath.Base(p))
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.TrimRight(base, " ")
	switch base {
	case "NUL", "CON", "PRN", "AUX", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '1' && base[3] <= '9' {
		return true
	}
	return false
}
