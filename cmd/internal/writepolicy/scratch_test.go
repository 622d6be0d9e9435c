//go:build unix

package writepolicy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// deadPID is the PID of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skipf("no true to run: %v", err)
	}
	return c.Process.Pid
}

// A write killed in the middle (kill -9) leaves its scratch directory; the
// next Replace of the same path sweeps it: the half-written file goes, and
// a special file it had just taken out of the path is put back there. A
// live write's directory (its process alive, or its lock held) stays.
func TestReplaceSweepsKilledWrites(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "r.json")
	dead := strconv.Itoa(deadPID(t))
	killed := filepath.Join(dir, ".r.json.tmp-"+dead+"-a")
	os.Mkdir(killed, 0o700)
	os.WriteFile(filepath.Join(killed, "f"), []byte("half"), 0o600)
	// A killed write that had taken a FIFO out of the path to look at it.
	holding := filepath.Join(dir, ".r.json.tmp-"+dead+"-b")
	os.Mkdir(holding, 0o700)
	if err := unix.Mkfifo(filepath.Join(holding, "f"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A live write of another process (ours stands in: alive, and locked).
	live := filepath.Join(dir, ".r.json.tmp-1-c")
	os.Mkdir(live, 0o700)
	// Another path's leftovers are not this path's to sweep.
	other := filepath.Join(dir, ".other.json.tmp-"+dead+"-d")
	os.Mkdir(other, 0o700)

	if err := Replace(target, []byte("report"), 0o644, nil); err == nil {
		t.Errorf("Replace over the FIFO put back at the path: nil error")
	}
	for _, p := range []string{killed, holding} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s not swept", filepath.Base(p))
		}
	}
	for _, p := range []string{live, other} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s swept: %v", filepath.Base(p), err)
		}
	}
	if fi, err := os.Lstat(target); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was not put back at the path: %v, %v", fi, err)
	}
	os.Remove(target)
	if err := Replace(target, []byte("report"), 0o644, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, target); got != "report" {
		t.Errorf("content %q", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 { // r.json, the live write's directory, the other path's
		t.Errorf("left in the directory: %v", ents)
	}
}
