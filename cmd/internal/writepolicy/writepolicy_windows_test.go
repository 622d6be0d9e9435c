package writepolicy

import "testing"

// Devices and pipes are written through, never replaced; files are not.
func TestWindowsDevicePaths(t *testing.T) {
	for path, want := range map[string]bool{
		"NUL": true, "nul": true, "NUL.txt": true, `C:\logs\nul`: true, "CON": true, "CONOUT$": true,
		"COM1": true, "lpt9.log": true, `\\.\pipe\retry-log`: true, `//./pipe/x`: true, `\\?\GLOBALROOT\Device\Null`: true,
		"report.json": false, "null": false, "COM0": false, "console.log": false, `\\?\C:\logs\run.json`: false, "NUL/x": false,
	} {
		if got := isDevicePath(path); got != want {
			t.Errorf("isDevicePath(%q) = %v, want %v", path, got, want)
		}
	}
}
