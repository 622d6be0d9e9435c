package sinks

import (
	"bytes"
	"io"
)

// windowStart returns the offset at which a window of a stream, cut from
// it at offset from (> 0; the stream is size bytes, read through r), may
// start to be shown: where a line starts, so that a secret whose name the
// cut left before the window (key=VALUE, "password": "VALUE", a header) is
// not shown without it; and past the end of a PEM private key whose start
// the cut left out. What a rule cannot read whole is left out: the bytes
// up to there count as not shown. A window whose only line started before
// it shows nothing.
func windowStart(r io.ReaderAt, from, size int64, buf []byte) int64 {
	if from <= 0 {
		return 0
	}
	at := from - 1 // the byte before the window: a line break, or the line goes on
	for at < size {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-at)], at)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			at += int64(i) + 1
			break
		}
		at += int64(n)
		if err != nil && n == 0 {
			return size
		}
	}
	if at >= size {
		return size
	}
	// A private key's body and end, its start cut off: left out through
	// its end line, when that comes before any start in what follows.
	n, _ := r.ReadAt(buf[:min(int64(len(buf)), size-at)], at)
	head := buf[:n]
	end := bytes.Index(head, []byte("-----END"))
	if end < 0 || !bytes.Contains(head[end:], []byte("PRIVATE KEY-----")) {
		return at
	}
	if begin := bytes.Index(head, []byte("-----BEGIN")); begin >= 0 && begin < end {
		return at
	}
	if i := bytes.IndexByte(head[end:], '\n'); i >= 0 {
		return at + int64(end+i+1)
	}
	return size
}
