//go:build linux

package command

import (
	"os"
	"testing"
)

// The watch sees the reader of a pipe go away without writing to it, and
// calls the running attempt's reaction; a file is not watched.
func TestReaderWatch(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rw := watchReader(w)
	if rw == nil {
		t.Fatal("a pipe is not watched")
	}
	defer rw.stop()
	called := make(chan struct{})
	rw.attempt(func() { close(called) })
	r.Close()
	<-called
	if !rw.readerGone() {
		t.Error("readerGone is false after the reader went")
	}

	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if watchReader(f) != nil {
		t.Error("a regular file is watched")
	}
	var none *readerWatch
	none.attempt(nil)
	none.stop()
	if none.readerGone() {
		t.Error("no watch, yet a reader gone")
	}
}
