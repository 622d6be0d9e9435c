package plan

import (
	"os"
	"path/filepath"
	"strings"
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

// defaultShell runs --shell and a --shell --on-retry hook on Windows, as
// nick-fields/retry's shell: cmd does on Windows runners.
const defaultShell = "cmd.exe"

// shellArgv is how shell runs script, by the shell's own convention:
// cmd.exe /d /s /c SCRIPT (no AutoRun; the command source passes SCRIPT
// to cmd.exe as is, in quotes that /s strips), pwsh and powershell
// -NoProfile -NonInteractive -Command SCRIPT, and any other shell (bash,
// sh: Git Bash, MSYS2, WSL's bash.exe) SHELL -c SCRIPT.
func shellArgv(shell, script string) []string {
	name := strings.ToLower(filepath.Base(shell))
	name = strings.TrimSuffix(name, ".exe")
	switch name {
	case "cmd":
		return []string{shell, "/d", "/s", "/c", script}
	case "pwsh", "powershell":
		return []string{shell, "-NoProfile", "-NonInteractive", "-Command", script}
	}
	return []string{shell, "-c", script}
}
