package iostreams

import (
	"errors"
	"os"
	"sync"
	"time"
)

// Interruptible is one of retry's own streams (its stdout or stderr) whose
// writes a signal can abandon. A write to a pipe that nobody reads
// (`(retry run …) | sleep 15`) blocks in write(2), and no signal ends that
// wait (Go restarts the call), so without this a signal would be handled
// only once the reader reads. Every write runs on a goroutine of its own
// while the caller waits for it or for Interrupt; once interrupted, a
// write still blocked is left to the kernel (retry exits soon after, and
// the write ends with it) and fails with the interrupt's cause, as does
// every later write. Once interrupted, a write may take AfterInterrupt at
// most, or the stream is given up: retry's last lines still reach a stderr
// that is read, and a stream that is not read holds up its exit once, for
// AfterInterrupt.
//
// The stream is never put in non-blocking mode: its open file description
// is the caller's, shared with the other processes that write to it (a
// `make -j` recipe's siblings), which a non-blocking mode would break.
type Interruptible struct {
	f *os.File

	mu     sync.Mutex // one write at a time, in order
	buf    []byte     // what the write in flight writes: the caller may reuse its own
	broken error      // a write was abandoned: every later write fails with this

	once        sync.Once
	interrupted chan struct{} // closed by Interrupt
	cause       error
}

// AfterInterrupt is how long a write may take once the stream is
// interrupted (the one blocked then included) before the stream is given
// up.
const AfterInterrupt = 200 * time.Millisecond

// ErrInterrupted is the cause of Interrupt(nil).
var ErrInterrupted = errors.New("interrupted")

// NewInterruptible returns f as an Interruptible stream.
func NewInterruptible(f *os.File) *Interruptible {
	return &Interruptible{f: f, interrupted: make(chan struct{})}
}

// File returns the stream's file, for what only reads its properties (is it
// a terminal, how wide): writes go through Write or Do.
func (s *Interruptible) File() *os.File { return s.f }

// Interrupt bounds the write that is in flight now and the ones to come
// (AfterInterrupt); one that passes it is abandoned, and it and every later
// write fail with cause (ErrInterrupted when nil).
// It may be called from any goroutine; calls after the first do nothing.
func (s *Interruptible) Interrupt(cause error) {
	s.once.Do(func() {
		if cause == nil {
			cause = ErrInterrupted
		}
		s.cause = cause
		close(s.interrupted)
	})
}

// Write writes p whole, or fails: with the write's own error, or with the
// interrupt's cause when the write was abandoned.
func (s *Interruptible) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return 0, s.broken
	}
	s.buf = append(s.buf[:0], p...)
	b := s.buf
	var n int
	err := s.do(func(f *os.File) error {
		var err error
		n, err = f.Write(b)
		return err
	})
	if s.broken != nil && err == s.broken {
		return 0, err
	}
	return n, err
}

// Do runs op on the stream's file as a write (op must not touch memory its
// caller reuses once Do returned: an abandoned op goes on in the
// background), and returns its error, or the interrupt's cause when op
// was abandoned. The final stdout goes through it, so that sendfile(2)
// still sees the file.
func (s *Interruptible) Do(op func(f *os.File) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.do(op)
}

func (s *Interruptible) do(op func(f *os.File) error) error {
	if s.broken != nil {
		return s.broken
	}
	done := make(chan error, 1)
	go func() { done <- op(s.f) }()
	select {
	case err := <-done:
		return err
	case <-s.interrupted:
	}
	timer := time.NewTimer(AfterInterrupt)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		s.broken = s.cause
		s.buf = nil // the abandoned write keeps its own
		return s.broken
	}
}
