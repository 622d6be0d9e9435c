package output

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sendFile copies n bytes of src from offset off to dst with sendfile(2),
// which on Linux writes to any file (a pipe, a regular file, a terminal) and
// leaves src's offset alone. handled is false when the kernel cannot do it
// for these two files (EINVAL: dst opened with O_APPEND, say) before
// anything was written: the caller copies instead. A write error is an
// *os.PathError naming dst, as (*os.File).Write returns it.
func sendFile(dst, src *os.File, off, n int64) (written int64, handled bool, err error) {
	dc, err := dst.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	sc, err := src.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	handled = true
	var serr error
	rerr := sc.Read(func(sfd uintptr) bool {
		werr := dc.Write(func(dfd uintptr) bool {
			for written < n {
				k, e := unix.Sendfile(int(dfd), int(sfd), &off, int(min(n-written, 1<<30)))
				if k > 0 {
					written += int64(k)
				}
				switch {
				case e == unix.EAGAIN:
					return false // dst is non-blocking and full: wait until it is writable
				case e == unix.EINTR:
				case e != nil:
					if written == 0 && (e == unix.EINVAL || e == unix.ENOSYS || e == unix.EOPNOTSUPP) {
						handled = false
					} else {
						serr = &os.PathError{Op: "write", Path: dst.Name(), Err: e}
					}
					return true
				case k == 0:
					serr = &os.PathError{Op: "read", Path: src.Name(), Err: unix.EIO} // src ended early
					return true
				}
			}
			return true
		})
		if serr == nil && werr != nil {
			serr = werr
		}
		return true
	})
	if serr == nil && rerr != nil {
		serr = rerr
	}
	return written, handled, serr
}

// SpliceFrom moves up to max bytes from the pipe that rc reads straight
// into the spill file, with splice(2): the bytes never pass through
// retry's memory. It waits, as a Read of rc's file would, until the pipe
// has something or is at its end (n 0, err nil), or the file's read
// deadline passes (err from rc). ok is false when the Capture cannot take
// the bytes this way (it has not spilled, or keeps an error, or the
// kernel refused before moving anything): the caller reads and Writes
// instead. A failure to write the spill file (a full disk) is kept, as
// Write keeps it, and returned; Err reports it.
func (c *Capture) SpliceFrom(rc syscall.RawConn, max int) (n int, ok bool, err error) {
	if c.closed || c.err != nil || c.file == nil || c.spillErr != nil || max <= 0 {
		return 0, false, nil
	}
	wc, err := c.file.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	ok = true
	var serr error
	werr := wc.Write(func(wfd uintptr) bool {
		err = rc.Read(func(rfd uintptr) bool {
			for {
				k, e := unix.Splice(int(rfd), nil, int(wfd), nil, max, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
				switch {
				case e == unix.EAGAIN:
					return false // the pipe is empty: wait for it
				case e == unix.EINTR:
					continue
				case e == unix.EINVAL || e == unix.ENOSYS:
					ok = false
				case e != nil:
					serr = e
				default:
					n = int(k)
				}
				return true
			}
		})
		return true
	})
	switch {
	case !ok:
		return 0, false, nil
	case serr != nil:
		c.err = &os.PathError{Op: "write", Path: c.file.Name(), Err: serr}
		return 0, true, c.err
	case err != nil:
		return 0, true, err
	case werr != nil:
		return 0, true, werr
	}
	c.size += int64(n)
	c.tail = nil
	return n, true, nil
}
