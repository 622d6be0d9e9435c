package command

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/retry-dev/retry/runner/output"
)

// stdinMode says how attempts get their stdin.
type stdinMode int

const (
	// stdinNull: no stdin, /dev/null itself, or a terminal the attempt may
	// not read (it runs in a background process group, where reading would
	// stop it): every attempt reads /dev/null.
	stdinNull stdinMode = iota
	// stdinInherit: a terminal with --foreground: attempts read it directly.
	stdinInherit
	// stdinSeek: a regular file: every attempt reads it from where it stood
	// when retry started.
	stdinSeek
	// stdinRecord: a pipe, socket or device: the first attempt's reads are
	// recorded and replayed to later attempts.
	stdinRecord
)

// feedChunk is how much the feeder hands to an attempt's stdin pipe at a
// time, and how much the recorder reads from the real stdin at a time.
const feedChunk = 32 << 10

// stdinSource gives every attempt its stdin.
type stdinSource struct {
	mode   stdinMode
	file   *os.File // what the child gets in the null, inherit and seek modes
	offset int64    // stdinSeek: where every attempt starts
	rec    *recorder
	null   bool // file is our /dev/null, to close
}

// newStdinSource picks the mode for f: nil, unreadable or a terminal without
// foreground → /dev/null; /dev/null itself → passed through (every attempt
// reads EOF, as a recording of it would give, without the pipe and the
// goroutine a recording costs); a terminal with foreground → passed through;
// a seekable regular file → re-read from its current offset by every
// attempt; anything else → recorded and replayed.
func newStdinSource(f *os.File, foreground bool, dir string, threshold, fallback int64) (*stdinSource, error) {
	if f != nil {
		if fi, err := f.Stat(); err == nil {
			switch {
			case isDevNull(fi):
				return &stdinSource{mode: stdinNull, file: f}, nil
			case IsTerminal(f):
				if foreground {
					return &stdinSource{mode: stdinInherit, file: f}, nil
				}
			case fi.Mode().IsRegular():
				if off, err := f.Seek(0, io.SeekCurrent); err == nil {
					return &stdinSource{mode: stdinSeek, file: f, offset: off}, nil
				}
				return &stdinSource{mode: stdinRecord, rec: newRecorder(f, dir, threshold, fallback)}, nil
			default:
				return &stdinSource{mode: stdinRecord, rec: newRecorder(f, dir, threshold, fallback)}, nil
			}
		}
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	return &stdinSource{mode: stdinNull, file: null, null: true}, nil
}

// isDevNull reports whether fi is the null device.
func isDevNull(fi os.FileInfo) bool {
	if fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

// attach prepares one attempt's stdin. It returns the descriptor the child
// gets, whether the parent must close it once the child started, and a
// function that ends the attempt's feeding (nil when there is none); that
// function returns once the feeding goroutine is gone.
func (s *stdinSource) attach() (child uintptr, closeChild bool, detach func(), err error) {
	switch s.mode {
	case stdinSeek:
		if _, err := s.file.Seek(s.offset, io.SeekStart); err != nil {
			return 0, false, nil, err
		}
	case stdinRecord:
		w, r, err := pipe(false)
		if err != nil {
			return 0, false, nil, err
		}
		done := make(chan struct{})
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			s.rec.feed(w, done)
		}()
		return uintptr(r), true, func() {
			close(done)
			w.Close()
			<-exited
		}, nil
	}
	return s.file.Fd(), false, nil, nil
}

// onFail sets the function the current attempt's feeder calls, before it
// closes the child's stdin, when the recording failed: the attempt must be
// stopped rather than read a stdin cut short as if it ended there.
func (s *stdinSource) onFail(f func(error)) {
	if s.rec == nil {
		return
	}
	s.rec.mu.Lock()
	s.rec.failed = f
	s.rec.mu.Unlock()
}

// err returns the error that stopped the recording, if any.
func (s *stdinSource) err() error {
	if s.rec == nil {
		return nil
	}
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return s.rec.err
}

// close ends the recording and closes what the source opened.
func (s *stdinSource) close() error {
	if s.rec != nil {
		return s.rec.close()
	}
	if s.null {
		return s.file.Close()
	}
	return nil
}

// recorder records the real stdin as attempts ask for it. One goroutine
// reads the real stdin, and only when a feeder has handed everything
// recorded so far to its attempt and the attempt's pipe took it: read-ahead
// is bounded by the pipe's buffer plus one chunk, so an endless producer
// (`yes | retry run …`) is not drained into memory or disk.
type recorder struct {
	src *os.File
	buf []byte // the feeders' buffer; feeders run one at a time

	mu      sync.Mutex
	rec     *output.Capture
	eof     bool          // the real stdin is exhausted (or failed)
	err     error         // why the recording stopped early, if it did
	changed chan struct{} // closed when rec grows or eof is reached
	reading bool          // the reader goroutine runs
	closed  bool
	failed  func(error) // see stdinSource.onFail

	want chan struct{} // a feeder asks for more (buffered, 1)
	quit chan struct{} // closed by close
}

func newRecorder(src *os.File, dir string, threshold, fallback int64) *recorder {
	rec := output.NewCapture(dir, threshold, 0)
	rec.MemoryFallback = fallback
	return &recorder{
		src:     src,
		rec:     rec,
		changed: make(chan struct{}),
		want:    make(chan struct{}, 1),
		quit:    make(chan struct{}),
	}
}

// feed writes the recording to w, then what the real stdin yields next, and
// closes w at the end of stdin so the child reads EOF. It returns early when
// done is closed or the child stops reading (the pipe breaks).
func (r *recorder) feed(w *os.File, done <-chan struct{}) {
	defer w.Close()
	if r.buf == nil {
		r.buf = make([]byte, feedChunk)
	}
	var off int64
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return
		}
		n, err := r.rec.ReadAt(r.buf, off)
		eof, changed := r.eof, r.changed
		if err != nil && !errors.Is(err, io.EOF) && r.err == nil {
			r.err = err
		}
		failed, onFail, why := r.err != nil, r.failed, r.err
		r.mu.Unlock()
		if n > 0 {
			if _, err := w.Write(r.buf[:n]); err != nil {
				return // the child closed its stdin, or the attempt ended
			}
			off += int64(n)
			continue
		}
		if failed && onFail != nil {
			onFail(why) // stop the attempt before its stdin ends early
			return
		}
		if eof || failed {
			return
		}
		r.demand()
		select {
		case <-changed:
		case <-done:
			return
		}
	}
}

// demand asks the reader goroutine, started on first use, for one more
// read of the real stdin.
func (r *recorder) demand() {
	r.mu.Lock()
	if !r.reading && !r.closed {
		r.reading = true
		go r.read()
	}
	r.mu.Unlock()
	select {
	case r.want <- struct{}{}:
	default:
	}
}

// read reads the real stdin, one chunk per demand, into the recording.
func (r *recorder) read() {
	buf := make([]byte, feedChunk)
	for {
		select {
		case <-r.want:
		case <-r.quit:
			return
		}
		n, err := r.src.Read(buf)
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return
		}
		if n > 0 {
			if _, werr := r.rec.Write(buf[:n]); werr != nil {
				r.err, r.eof = werr, true
			}
		}
		if err != nil {
			// io.EOF, or an error reading stdin: either way it ends here.
			r.eof = true
		}
		close(r.changed)
		r.changed = make(chan struct{})
		end := r.eof
		r.mu.Unlock()
		if end {
			return
		}
	}
}

// close drops the recording. A reader goroutine blocked reading the real
// stdin cannot be interrupted: it exits when its read returns.
func (r *recorder) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	close(r.quit)
	return r.rec.Close()
}
