//go:build unix

package command

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/retry-dev/retry/runner/output"
)

// ErrReaderGone is the Err of the *output.StreamError that stops an
// attempt whose stdout retry holds (final mode) when the reader of retry's
// own stdout went away: the bytes can never be delivered, as a write would
// find (EPIPE, which it wraps: the run exits 141, as for a closed pipe).
var ErrReaderGone error = readerGone{}

type readerGone struct{}

func (readerGone) Error() string {
	return "broken pipe (its reader went away while retry held the attempt's stdout)"
}
func (readerGone) Unwrap() error { return syscall.EPIPE }

// readerWatch watches the write end of a pipe or a socket (retry's own
// stdout) for its reader going away, which poll(2) reports without a write
// as POLLERR (a pipe without a reader) or POLLHUP (a socket shut down), as
// GNU tail -f watches its output. One goroutine waits in poll(2) on the
// file and on a pipe of its own, which stop closes.
type readerWatch struct {
	gone atomic.Bool

	mu     sync.Mutex
	onGone func() // the running attempt's reaction, nil between attempts

	wake int // the write end of the watcher's own pipe; closed by stop
	once sync.Once
}

// watchReader starts watching f. It returns nil, watching nothing, when
// f is nil, is neither a pipe nor a socket (a file or a terminal has no
// reader to lose), or cannot be watched.
func watchReader(f *os.File) *readerWatch {
	if f == nil {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	_ = rc.Control(func(d uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(d), &st) != nil {
			return
		}
		if m := st.Mode & unix.S_IFMT; m != unix.S_IFIFO && m != unix.S_IFSOCK {
			return
		}
		// A descriptor of the watcher's own: f may be closed meanwhile.
		fd, _ = unix.FcntlInt(d, unix.F_DUPFD_CLOEXEC, 3)
	})
	if fd < 0 {
		return nil
	}
	var p [2]int
	if err := pipeCloexec(&p); err != nil {
		unix.Close(fd)
		return nil
	}
	w := &readerWatch{wake: p[1]}
	go w.run(fd, p[0])
	return w
}

// run waits until the reader of fd is gone (then it calls the attempt's
// onGone) or stop closed the other end of wake.
func (w *readerWatch) run(fd, wake int) {
	defer unix.Close(fd)
	defer unix.Close(wake)
	fds := []unix.PollFd{{Fd: int32(fd)}, {Fd: int32(wake), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err == unix.EINTR {
			continue
		} else if err != nil {
			return
		}
		if fds[1].Revents != 0 {
			return // stopped
		}
		if fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
			w.gone.Store(true)
			w.mu.Lock()
			f := w.onGone
			w.mu.Unlock()
			if f != nil {
				f()
			}
			return
		}
	}
}

// attempt sets what the reader's going away does to the running attempt
// (nil: none is running). A nil watch does nothing.
func (w *readerWatch) attempt(f func()) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.onGone = f
	w.mu.Unlock()
}

// readerGone reports whether the reader went away. A nil watch's never
// does.
func (w *readerWatch) readerGone() bool { return w != nil && w.gone.Load() }

// stop ends the watch. A nil watch does nothing.
func (w *readerWatch) stop() {
	if w == nil {
		return
	}
	w.once.Do(func() { unix.Close(w.wake) })
}

// heldStdoutLost fails the attempt of guard with ErrReaderGone when its
// stdout (held: final mode) has bytes and the reader of retry's stdout is
// gone. The pump calls it after it took bytes, the watch when the reader
// goes: whichever comes second finds both true.
func heldStdoutLost(w *readerWatch, stdout *pump) {
	if stdout.wrote.Load() && w.readerGone() && stdout.guard != nil {
		stdout.guard.fail(&output.StreamError{Stream: "stdout", Err: ErrReaderGone})
	}
}
