package writepolicy

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// racingExchange swaps the names a and b (renameat2 RENAME_EXCHANGE) in a
// loop, as another writer of the directory could, until stop is called.
func racingExchange(t *testing.T, a, b string) (stop func()) {
	t.Helper()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-quit:
				return
			default:
			}
			_ = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
		}
	}()
	return func() { close(quit); wg.Wait() }
}

// raceReplace runs Replace (and Append and Open) on target 300 times while
// target and special are swapped under it, and checks that the special
// file special made is still there, under one of the two names, and that
// no scratch directory is left.
func raceReplace(t *testing.T, dir, target, special string, isSpecial func(os.FileInfo) bool) {
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	close(done) // a FIFO without a reader is not waited for
	stop := racingExchange(t, target, special)
	refused := 0
	for i := range 300 {
		var err error
		switch i % 3 {
		case 0, 1:
			err = Replace(target, []byte("report\n"), 0o644, done)
		case 2:
			err = Append(target, []byte("line\n"), 0o644, done)
		}
		if err != nil {
			refused++
		}
	}
	stop()
	found := 0
	for _, p := range []string{target, special} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if isSpecial(fi) {
			found++
		} else if !fi.Mode().IsRegular() {
			t.Errorf("%s is a %v", p, fi.Mode())
		}
	}
	if found != 1 {
		t.Fatalf("the special file was replaced: %d of the two names hold it, want 1", found)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("left in the directory: %v", ents)
	}
	t.Logf("%d of 300 writes refused or failed while the path was swapped", refused)
}

// No write replaces a FIFO, even one another writer of the directory swaps
// in between the moment the path is resolved and the moment the report is
// put there.
func TestReplaceRacingFIFO(t *testing.T) {
	dir := t.TempDir()
	target, fifo := filepath.Join(dir, "r.json"), filepath.Join(dir, "ff")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	raceReplace(t, dir, target, fifo, func(fi os.FileInfo) bool { return fi.Mode()&os.ModeNamedPipe != 0 })
}

// The same for a character device: a device node of the test's own (a
// null device, 1:3), made in its temp dir, never the machine's.
func TestReplaceRacingDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a device node (mknod) needs root; the FIFO case (TestReplaceRacingFIFO) runs without")
	}
	dir := t.TempDir()
	target, dev := filepath.Join(dir, "r.json"), filepath.Join(dir, "null")
	if err := unix.Mknod(dev, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("mknod: %v (a container without CAP_MKNOD)", err)
	}
	raceReplace(t, dir, target, dev, func(fi os.FileInfo) bool { return fi.Mode()&os.ModeCharDevice != 0 })
}
