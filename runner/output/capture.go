// Package output keeps what an attempt writes. A Capture holds a stream
// byte-exact, in memory up to a threshold and in an unlinked temporary file
// beyond, with a tail window for output acceptors. StreamError says that a
// stream could not be written or kept whole, LimitError that it passed its
// bound. Both attempt sources use it: runner/command for stdout and the stdin
// recording, runner/request for response bodies. It imports no project
// package.
package output

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrCaptureClosed is returned by a Capture's methods after Close.
var ErrCaptureClosed = errors.New("capture closed")

const (
	// captureChunk is the size of the memory blocks a Capture keeps before it
	// spills: fixed blocks, so growing never copies what was written.
	captureChunk = 64 << 10
	// captureFirst is the capacity of the first block, so that small streams
	// stay small.
	captureFirst = 512
)

// Capture holds a stream byte-exact: in memory up to a threshold, then in a
// temporary file, so memory stays bounded whatever the stream's size: at
// most threshold bytes, and the tail window when Tail is called. Tail gives
// the stream's last bytes (its tail window) for output acceptors. The
// command source captures stdout (and records stdin) with it; the HTTP source
// captures response bodies.
//
// The temporary file is created 0600 and unlinked at once, so nothing is left
// behind even if retry is killed; only the open descriptor holds it until
// Close.
//
// A Capture is not safe for concurrent use: write it from one goroutine, then
// read it (Open, ReadAt, Tail, Size) once writing is done, or serialise the
// calls. Readers from Open read the bytes written before Open was called and
// stay valid until Close.
type Capture struct {
	// MemoryFallback, when > 0, lets the Capture keep the stream in memory
	// when its temporary file cannot be created or written (an unwritable
	// or full TMPDIR), up to MemoryFallback bytes in all; beyond, Write
	// fails and the Capture keeps the error. 0: no fallback, a spill error
	// is final.
	MemoryFallback int64
	// TailBuf, when set, is reused for the window Tail copies out of
	// several blocks, instead of a new slice each time: the command source
	// shares one across its attempts, which run one at a time and whose
	// windows are dropped (Strategy's forget) before the next one runs.
	TailBuf *[]byte

	dir       string
	threshold int64
	window    int

	chunks [][]byte // before spilling: the stream in fixed blocks
	file   *os.File // after spilling: the whole stream
	size   int64
	tail   []byte // after spilling: the last window bytes, read back by Tail
	err    error
	// spillErr is why spilling failed, when the stream went on in memory.
	spillErr error
	closed   bool
}

// NewCapture returns an empty Capture that keeps up to threshold bytes in
// memory and spills the whole stream to a temporary file in dir (os.TempDir()
// when dir is "") when it grows past threshold. threshold 0 spills at the
// first byte; a negative threshold never spills. window is the size of the
// tail window Tail returns; 0 or negative keeps no tail.
func NewCapture(dir string, threshold int64, window int) *Capture {
	return &Capture{dir: dir, threshold: threshold, window: max(window, 0)}
}

// Write appends p. Once a write to the spill file fails (a full disk), the
// Capture keeps that error: Write, Open and ReadAt return it from then on, so
// a truncated stream is never read as a whole one.
func (c *Capture) Write(p []byte) (int, error) {
	switch {
	case c.closed:
		return 0, ErrCaptureClosed
	case c.err != nil:
		return 0, c.err
	case len(p) == 0:
		return 0, nil
	}
	if c.file == nil && c.threshold >= 0 && c.size+int64(len(p)) > c.threshold && c.spillErr == nil {
		if err := c.spill(); err != nil {
			if c.MemoryFallback <= 0 {
				c.err = err
				return 0, err
			}
			c.spillErr = err // go on in memory, within the fallback
		}
	}
	if c.spillErr != nil && c.size+int64(len(p)) > c.MemoryFallback {
		c.err = fmt.Errorf("%w (and the memory fallback holds at most %s)", c.spillErr, FormatSize(c.MemoryFallback))
		return 0, c.err
	}
	if c.file != nil {
		n, err := c.file.Write(p)
		c.size += int64(n)
		c.tail = nil
		if err != nil {
			c.err = err
		}
		return n, err
	}
	c.size += int64(len(p))
	rest := p
	for len(rest) > 0 {
		last := len(c.chunks) - 1
		if last < 0 || len(c.chunks[last]) == captureChunk {
			size := captureChunk
			if last < 0 {
				size = captureFirst
			}
			c.chunks = append(c.chunks, make([]byte, 0, size))
			last++
		}
		ch := c.chunks[last]
		k := min(len(rest), captureChunk-len(ch))
		if len(ch)+k > cap(ch) {
			grown := make([]byte, len(ch), min(captureChunk, max(2*cap(ch), len(ch)+k)))
			copy(grown, ch)
			ch = grown
		}
		c.chunks[last] = append(ch, rest[:k]...)
		rest = rest[k:]
	}
	return len(p), nil
}

// spill moves what is in memory to a new, unlinked temporary file.
func (c *Capture) spill() error {
	f, err := spillFile(c.dir)
	if err != nil {
		return err
	}
	for _, ch := range c.chunks {
		if _, err := f.Write(ch); err != nil {
			f.Close()
			return err
		}
	}
	// The blocks (at most the threshold) are left to the collector: a
	// collection forced here cost more CPU (its wait for the sweep spins in
	// runtime.Gosched) than the memory it would hand back sooner.
	c.chunks = nil
	c.file = f
	return nil
}

// memTail returns the last window bytes held in memory, copying only when
// they span blocks (into TailBuf when set).
func (c *Capture) memTail() []byte {
	if c.window == 0 || len(c.chunks) == 0 {
		return nil
	}
	last := c.chunks[len(c.chunks)-1]
	want := int(min(int64(c.window), c.size))
	if len(last) >= want {
		return last[len(last)-want:]
	}
	var out []byte
	if c.TailBuf != nil && cap(*c.TailBuf) >= want {
		out = (*c.TailBuf)[:want]
	} else {
		out = make([]byte, want)
		if c.TailBuf != nil {
			*c.TailBuf = out
		}
	}
	at := want
	for i := len(c.chunks) - 1; i >= 0 && at > 0; i-- {
		ch := c.chunks[i]
		k := min(at, len(ch))
		copy(out[at-k:], ch[len(ch)-k:])
		at -= k
	}
	return out
}

// Err returns the error the Capture keeps: a write to its spill file that
// failed, after which it holds no whole stream.
func (c *Capture) Err() error { return c.err }

// Size returns the number of bytes written.
func (c *Capture) Size() int64 { return c.size }

// Tail returns the last bytes written, at most the window given to
// NewCapture; nil when nothing was written, the window is 0, or reading
// them back from the spill file failed. The slice may share memory with the
// Capture: do not modify it, and do not use it after the next Write or
// Close.
func (c *Capture) Tail() []byte {
	if c.closed || c.window == 0 || c.size == 0 {
		return nil
	}
	if c.file == nil {
		return c.memTail()
	}
	if c.tail == nil {
		n := min(int64(c.window), c.size)
		b := make([]byte, n)
		if _, err := c.file.ReadAt(b, c.size-n); err != nil {
			return nil
		}
		c.tail = b
	}
	return c.tail
}

// ReadAt reads len(p) bytes at offset off of the stream, as io.ReaderAt
// does: io.EOF when fewer than len(p) bytes are there.
func (c *Capture) ReadAt(p []byte, off int64) (int, error) {
	switch {
	case c.closed:
		return 0, ErrCaptureClosed
	case c.err != nil:
		return 0, c.err
	case off < 0:
		return 0, errors.New("capture: negative offset")
	case off >= c.size:
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := p
	if avail := c.size - off; int64(len(p)) > avail {
		want = p[:avail]
	}
	var n int
	if c.file != nil {
		var err error
		n, err = c.file.ReadAt(want, off)
		if err != nil && !errors.Is(err, io.EOF) {
			return n, err
		}
	} else {
		n = readChunks(c.chunks, want, off)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// readChunks copies from the blocks, starting at offset off, into p.
func readChunks(chunks [][]byte, p []byte, off int64) int {
	n := 0
	for _, ch := range chunks {
		if off >= int64(len(ch)) {
			off -= int64(len(ch))
			continue
		}
		k := copy(p[n:], ch[off:])
		n += k
		off = 0
		if n == len(p) {
			break
		}
	}
	return n
}

// Open returns a reader over the whole stream as written so far. It can be
// called any number of times; each reader starts at the beginning. Closing
// the reader is optional; Close of the Capture ends all readers.
func (c *Capture) Open() (io.ReadCloser, error) {
	switch {
	case c.closed:
		return nil, ErrCaptureClosed
	case c.err != nil:
		return nil, c.err
	}
	return &Reader{SectionReader: io.NewSectionReader(c, 0, c.size), c: c}, nil
}

// Reader is what Open returns: an *io.SectionReader (so a reader can ask
// its Size and ReadAt the end of the stream without reading it all) whose
// Close does nothing, and whose WriteTo lets io.Copy write the stream
// without copying it through small buffers. A caller that writes the
// stream out can assert *Reader and call WriteTo itself: an assertion to a
// concrete type, where io.Copy's to io.WriterTo builds an interface table
// at run time, on the path of every run in final mode.
type Reader struct {
	*io.SectionReader
	c *Capture
}

// Close does nothing: the Capture's Close ends its readers.
func (*Reader) Close() error { return nil }

// copyBuffer is the size of the reads from the spill file when the kernel
// cannot copy it: a few large reads rather than many of io.Copy's 32 KiB.
const copyBuffer = 256 << 10

// WriteTo writes the rest of the stream to w, as io.Copy asks it to. A
// stream in its spill file is copied by the kernel when w is a file (a
// pipe, a regular file, a terminal): sendfile(2) on Linux, so the bytes
// never pass through retry's memory. Otherwise a stream in memory is
// written block by block, with no copy, and a spilled one in reads of
// copyBuffer.
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	c := r.c
	// An io.SectionReader's Seek fails only on a bad whence or a negative
	// offset, neither of which comes here: its errors are not looked at.
	off, _ := r.Seek(0, io.SeekCurrent)
	size := r.Size()
	switch {
	case c.closed:
		return 0, ErrCaptureClosed
	case c.err != nil:
		return 0, c.err
	case off >= size:
		return 0, nil
	}
	var written int64
	if f, ok := w.(*os.File); ok && c.file != nil {
		n, handled, err := sendFile(f, c.file, off, size-off)
		written = n
		_, _ = r.Seek(off+n, io.SeekStart)
		if handled || err != nil {
			return written, err
		}
		off += n
	}
	if c.file == nil {
		for _, ch := range c.chunks {
			if off >= int64(len(ch)) {
				off -= int64(len(ch))
				continue
			}
			n, err := w.Write(ch[off:])
			written += int64(n)
			_, _ = r.Seek(int64(n), io.SeekCurrent)
			if err != nil {
				return written, err
			}
			off = 0
		}
		return written, nil
	}
	buf := make([]byte, min(copyBuffer, size-off))
	for off < size {
		n, err := c.file.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			written += int64(m)
			off += int64(m)
			_, _ = r.Seek(off, io.SeekStart)
			if werr != nil {
				return written, werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF // the file is shorter than what was written to it
			}
			return written, err
		}
	}
	return written, nil
}

// Close drops the memory and the temporary file. It is safe to call more
// than once; later calls do nothing.
func (c *Capture) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.chunks = nil
	c.tail = nil
	if c.file != nil {
		return c.file.Close()
	}
	return nil
}
