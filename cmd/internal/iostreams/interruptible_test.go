package iostreams

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/retry-dev/retry/internal/testdir"
)

// A write that a reader does not take is abandoned by Interrupt: it fails
// with the cause, and so does every later write; the caller's buffer is
// its own again at once.
func TestInterruptAbandonsBlockedWrite(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	s := NewInterruptible(w)
	big := bytes.Repeat([]byte("x"), 1<<20) // more than a pipe holds
	done := make(chan error, 1)
	go func() { _, err := s.Write(big); done <- err }()
	cause := errors.New("interrupted by SIGTERM")
	s.Interrupt(cause)
	if err := <-done; err != cause {
		t.Fatalf("blocked write returned %v, want the cause", err)
	}
	clear(big) // the abandoned write copied it
	if _, err := s.Write([]byte("later\n")); err != cause {
		t.Errorf("later write returned %v, want the cause", err)
	}
	if err := s.Do(func(*os.File) error { return nil }); err != cause {
		t.Errorf("later Do returned %v, want the cause", err)
	}
	b := make([]byte, 1<<16)
	n, _ := io.ReadFull(r, b)
	if bytes.IndexByte(b[:n], 0) >= 0 {
		t.Errorf("the abandoned write wrote the caller's reused buffer")
	}
}

// A stream that is read still takes writes after Interrupt.
func TestInterruptedStreamStillWrites(t *testing.T) {
	f, err := os.Create(testdir.New(t) + "/err")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := NewInterruptible(f)
	s.Interrupt(nil)
	if _, err := s.Write([]byte("retry: last line\n")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f.Name())
	if string(b) != "retry: last line\n" {
		t.Errorf("file holds %q", b)
	}
}
