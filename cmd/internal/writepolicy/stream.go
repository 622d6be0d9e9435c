//go:build unix

package writepolicy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// writeThrough opens t as it is and writes data to it.
func writeThrough(t target, data []byte, done <-chan struct{}) error {
	s, err := openThrough(t, false)
	if err != nil {
		return err
	}
	if done != nil {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-done:
				s.Abort()
			case <-stop:
			}
		}()
	}
	_, err = s.Write(data)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// Stream is a sink written line by line during a run (--log-file). It
// remembers its first error: a failed write is not retried, later writes
// are dropped, and Err says what was lost.
type Stream struct {
	path string
	fifo bool
	// fifoPath is where a FIFO is opened (for writing, and for reading by
	// Abort): the FIFO resolve found, pinned (pin), so that another
	// writer of its directory swapping its name does not make retry open
	// something else; path where the system cannot pin it.
	fifoPath string
	pin      io.Closer // holds the FIFO that fifoPath names; nil for none
	// buffered: while a FIFO waits for its reader, writes are held (up to
	// maxPending) and written when the reader comes, so that the run goes
	// on; otherwise a write waits for the reader.
	buffered bool

	ready chan struct{} // closed once the file is open, or opening failed
	abort chan struct{} // closed by Abort
	once  sync.Once
	file  atomic.Pointer[os.File] // set once open; read by Abort without mu

	mu      sync.Mutex // one write at a time, in order
	pending []byte     // written before a FIFO's reader came
	err     error      // the first error
}

// maxPending bounds what a stream holds while its FIFO has no reader.
const maxPending = 1 << 20

// abortGrace is how long a write that a FIFO's reader does not take may
// still wait once the sink is aborted: the reader gets the run's last lines
// when it reads at all.
const abortGrace = time.Second

// Open opens path as a stream: a regular or missing path (after symbolic
// links) is created or truncated, as a shell's "> FILE" does; a path
// written through is opened as it is. It never blocks: a FIFO without a
// reader is opened in the background, and what is written meanwhile is
// held (up to 1 MiB) and written when the reader comes; Close (or Abort)
// gives up on a reader that has not come, and then what was held is lost
// (Err says so).
func Open(path string) (*Stream, error) {
	t, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if t.kind == regular {
		f, err := openRegular(t.path, os.O_TRUNC, 0o644)
		if err != nil {
			return nil, err
		}
		s := newStream(path, false, true)
		s.file.Store(f)
		close(s.ready)
		return s, nil
	}
	return openThrough(t, true)
}

func newStream(path string, fifo, buffered bool) *Stream {
	return &Stream{path: path, fifo: fifo, buffered: buffered, ready: make(chan struct{}), abort: make(chan struct{})}
}

// errNoReader is the error of a FIFO whose reader did not come.
func (s *Stream) errNoReader(lost int) error {
	msg := "no reader opened the FIFO before the run ended"
	if lost > 0 {
		msg += fmt.Sprintf(" (%d bytes lost)", lost)
	}
	return &fs.PathError{Op: "write", Path: s.path, Err: errors.New(msg)}
}

// openThrough opens a path written through. A FIFO (or a pipe behind
// /dev/fd/N) is opened without blocking; without a reader yet (ENXIO), a
// goroutine waits for one, and Abort releases it by opening the read side
// itself.
func openThrough(t target, buffered bool) (*Stream, error) {
	s := newStream(t.path, t.fifo, buffered)
	if t.own > 0 {
		// One of retry's own descriptors: written through a duplicate, at
		// the offset the caller's redirection and retry's own writes share.
		fd, err := unix.FcntlInt(uintptr(t.own), unix.F_DUPFD_CLOEXEC, 3)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: t.path, Err: err}
		}
		s.file.Store(os.NewFile(uintptr(fd), t.path))
		close(s.ready)
		return s, nil
	}
	if !t.fifo {
		// O_APPEND: a regular file behind /dev/fd/N is the caller's, opened
		// by them (3>>FILE, or 3>FILE already truncated); the write goes
		// after what is in it, not over it. A device ignores it.
		// Opened as what resolve found (pin): another writer of the
		// directory may have swapped the name since.
		at, held, err := pin(t.path, t.typ)
		if err != nil {
			return nil, err
		}
		f, err := os.OpenFile(at, os.O_WRONLY|os.O_APPEND|unix.O_NOCTTY, 0)
		if held != nil {
			held.Close()
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: t.path, Err: unwrapPath(err)}
		}
		s.file.Store(f)
		close(s.ready)
		return s, nil
	}
	var err error
	if s.fifoPath, s.pin, err = pin(t.path, t.typ); err != nil {
		return nil, err
	}
	// O_NONBLOCK: ENXIO at once when no reader has the FIFO open. The file
	// is pollable, so a write the reader does not take can be given a
	// deadline (Abort).
	f, err := os.OpenFile(s.fifoPath, os.O_WRONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err == nil {
		s.file.Store(f)
		close(s.ready)
		return s, nil
	}
	if !errors.Is(err, unix.ENXIO) {
		s.closePin()
		return nil, err
	}
	go s.openLater()
	return s, nil
}

// openLater waits for the FIFO's reader (or Abort, which opens the read
// side itself), then writes what was held.
func (s *Stream) openLater() {
	// Blocks until a reader opens the FIFO. (The file is pollable all the
	// same: os.OpenFile makes every file it opens non-blocking where the
	// poller takes it, a FIFO included.)
	f, err := os.OpenFile(s.fifoPath, os.O_WRONLY|unix.O_NOCTTY, 0)
	s.mu.Lock()
	defer s.mu.Unlock()
	defer close(s.ready) // under mu: a write sees the file, or holds its bytes for here
	select {
	case <-s.abort:
		if f != nil {
			f.Close()
		}
		if s.err == nil && len(s.pending) > 0 {
			s.err = s.errNoReader(len(s.pending))
		}
		s.pending = nil
		return
	default:
	}
	if err != nil {
		if s.err == nil {
			s.err = s.named(err)
		}
		return
	}
	s.file.Store(f)
	if len(s.pending) > 0 && s.err == nil {
		if _, err := f.Write(s.pending); err != nil {
			s.err = s.named(err)
		}
	}
	s.pending = nil
}

// Write writes p whole, or fails and remembers why; once a write failed,
// every later one fails with the same error. While a FIFO waits for its
// reader, a stream of Open holds p; one of Replace or Append waits for the
// reader until Abort.
func (s *Stream) Write(p []byte) (int, error) {
	if !s.buffered {
		select {
		case <-s.ready:
		case <-s.abort:
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	select {
	case <-s.ready:
	default:
		select {
		case <-s.abort:
			s.err = s.errNoReader(len(s.pending) + len(p))
			return 0, s.err
		default:
		}
		if len(s.pending)+len(p) > maxPending {
			s.err = &fs.PathError{Op: "write", Path: s.path, Err: fmt.Errorf("no reader opened the FIFO before %d bytes were written", maxPending)}
			return 0, s.err
		}
		s.pending = append(s.pending, p...)
		return len(p), nil
	}
	f := s.file.Load()
	if f == nil { // given up before a reader came
		s.err = s.errNoReader(len(p))
		return 0, s.err
	}
	n, err := f.Write(p)
	if err != nil {
		s.err = s.named(err)
		return n, s.err
	}
	return n, nil
}

// Abort ends the waits of the stream: a FIFO without a reader is given up
// (the background open is released by opening the read side, and what was
// held is lost), and a write that a reader does not take fails after a
// short grace (abortGrace). The run calls it when a signal arrives; Close
// calls it too. Calling it again does nothing.
func (s *Stream) Abort() {
	s.once.Do(func() {
		close(s.abort)
		select {
		case <-s.ready:
		default:
			// Release the goroutine blocked opening the FIFO.
			if r, err := os.OpenFile(s.fifoPath, os.O_RDONLY|unix.O_NONBLOCK, 0); err == nil {
				<-s.ready
				r.Close()
			}
		}
		if f := s.file.Load(); f != nil && s.fifo {
			_ = f.SetWriteDeadline(time.Now().Add(abortGrace))
		}
	})
}

// Err returns the first error of the stream's writes, or nil.
func (s *Stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Path is the path the stream was opened with.
func (s *Stream) Path() string { return s.path }

// Close gives up on a FIFO's reader that has not come (Abort), closes the
// file, and returns the first error of the stream's writes or of closing
// it: nil when everything written reached the file.
func (s *Stream) Close() error {
	select {
	case <-s.ready:
	default:
		// A reader that came just now (its open and the background one
		// not through yet) still gets what was held.
		if f, err := os.OpenFile(s.fifoPath, os.O_WRONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0); err == nil {
			s.mu.Lock()
			if len(s.pending) > 0 && s.err == nil {
				if _, err := f.Write(s.pending); err != nil {
					s.err = s.named(err)
				}
			}
			s.pending = nil
			s.mu.Unlock()
			f.Close()
		}
		s.Abort()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && len(s.pending) > 0 {
		s.err = s.errNoReader(len(s.pending))
		s.pending = nil
	}
	if f := s.file.Swap(nil); f != nil {
		if err := f.Close(); err != nil && s.err == nil {
			s.err = s.named(err)
		}
	}
	s.closePin()
	return s.err
}

// named gives an error of the file opened through a pinned name
// (/proc/self/fd/N) the path the user gave.
func (s *Stream) named(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != s.path && strings.HasPrefix(pe.Path, "/proc/self/fd/") {
		return &fs.PathError{Op: pe.Op, Path: s.path, Err: pe.Err}
	}
	return err
}

// closePin lets go of the FIFO pinned for fifoPath.
func (s *Stream) closePin() {
	if s.pin != nil {
		s.pin.Close()
		s.pin = nil
	}
}
