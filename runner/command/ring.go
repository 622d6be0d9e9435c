package command

import "slices"

// ringFirst is the capacity of a ring's first buffer, so that small streams
// stay small.
const ringFirst = 512

// ring keeps the last bytes of a stream in a buffer that grows up to its
// window and then wraps.
type ring struct {
	buf  []byte
	pos  int // next write position once full
	full bool
}

// write appends p, keeping at most window bytes.
func (r *ring) write(p []byte, window int) {
	if window <= 0 || len(p) == 0 {
		return
	}
	if !r.full {
		if len(r.buf)+len(p) <= window {
			if len(r.buf)+len(p) > cap(r.buf) {
				grown := make([]byte, len(r.buf), min(window, max(2*cap(r.buf), len(r.buf)+len(p), ringFirst)))
				copy(grown, r.buf)
				r.buf = grown
			}
			r.buf = append(r.buf, p...)
			return
		}
		// The window fills: from now on the buffer is full size and wraps.
		if cap(r.buf) < window {
			grown := make([]byte, len(r.buf), window)
			copy(grown, r.buf)
			r.buf = grown
		}
		k := window - len(r.buf)
		r.buf = append(r.buf, p[:k]...)
		p = p[k:]
		r.full = true
		r.pos = 0
	}
	if len(p) >= window {
		copy(r.buf, p[len(p)-window:])
		r.pos = 0
		return
	}
	k := copy(r.buf[r.pos:], p)
	if k < len(p) {
		copy(r.buf, p[k:])
	}
	r.pos = (r.pos + len(p)) % window
}

// bytes returns the window in order. It rotates the buffer in place, so it
// allocates nothing; the slice is valid until the next write.
func (r *ring) bytes() []byte {
	if !r.full || r.pos == 0 {
		return r.buf
	}
	slices.Reverse(r.buf[:r.pos])
	slices.Reverse(r.buf[r.pos:])
	slices.Reverse(r.buf)
	r.pos = 0
	return r.buf
}
