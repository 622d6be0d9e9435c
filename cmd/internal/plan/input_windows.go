package plan

import (
	"os"
	"path/filepath"
)

// setBlocking does nothing on Windows: O_NONBLOCK does not apply to files
// there, and opening a named pipe never waits for its other end.
func setBlocking(*os.File) {}

// defaultStateDir is %LOCALAPPDATA%\retry, where Windows programs keep
// the state of one user on one machine (not roamed); false when
// LOCALAPPDATA is not set.
func defaultStateDir() (string, bool) {
	if d := os.Getenv("LOCALAPPDATA"); d != "" {
		return filepath.Join(d, "retry"), true
	}
	return "", false
}
