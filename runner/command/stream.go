package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/retry-dev/retry/runner"
)

// errDecided is the cause with which AttemptStream stops an attempt that a
// document of its stream decided.
var errDecided = errors.New("decided by a document of its stream")

// AttemptStream runs attempt n of at most max as Attempt does, reading its
// stdout as a stream of JSON values (`kubectl get … -o json --watch`, a
// program printing NDJSON) with go-json-experiment's jsontext decoder, and
// calls doc with each whole value as soon as its last byte is read. It
// implements runner.Streamer:
//
//   - doc returning true decides the attempt: its process group is stopped
//     as a timed-out attempt's is (the stop signal, the grace, SIGKILL),
//     and the Result has Decided set and Stopped nil;
//   - stdout that is not JSON (a table: -o json forgotten) breaks the
//     stream: doc gets what follows the last whole value (what the decoder
//     holds of it), once, and the attempt is decided the same way;
//   - a stream that ends (the command exits, or is stopped by the attempt
//     timeout, the deadline or a signal) gives an ordinary Result whose
//     stdout is the last whole value, or when none came whole what the
//     command printed; a value cut short by the end is not evaluated and
//     is said in a warning.
//
// Nothing of the stream is kept but the last whole value (and the tail
// window of stderr, as for every attempt); what the command prints after
// the decision is read and dropped, so that it never blocks on its stdout.
func (c *Command) AttemptStream(ctx context.Context, n, maxAttempts int, doc func([]byte) bool) *runner.Result {
	sctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	pr, pw := io.Pipe()
	s := &stream{doc: doc, stop: func() { stop(errDecided) }, done: make(chan struct{})}
	go s.read(pr)
	res := c.attempt(sctx, n, maxAttempts, pw)
	pw.Close() // every byte the command printed was handed over: the reader ends
	<-s.done
	res.Documents = s.documents
	if s.decided {
		res.Decided, res.Stopped = true, nil
		return res
	}
	if s.partial > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the stream ended inside a JSON value: its %s after %s were not evaluated", pluralS(s.partial, "byte"), pluralS(s.documents, "whole document")))
	}
	if s.last != nil && res.Attempt != nil {
		last := s.last
		res.StdoutTail = last[max(len(last)-c.window(), 0):]
		res.Stdout = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(last)), nil }
	}
	return res
}

// stream reads the JSON values of an attempt's stdout.
type stream struct {
	doc  func([]byte) bool
	stop func() // stops the attempt: doc decided it
	done chan struct{}

	// Written by read, read once done is closed.
	documents int    // whole values passed to doc
	last      []byte // the last of them
	decided   bool   // doc decided, or the stream broke
	partial   int    // bytes of a value the end cut short
}

// read decodes values from r until the attempt is decided or r ends, then
// drains r.
func (s *stream) read(r io.Reader) {
	defer close(s.done)
	// As encoding/json reads each document: duplicate names and invalid
	// UTF-8 are the evaluation's business, not the stream's.
	dec := jsontext.NewDecoder(r, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for !s.decided {
		v, err := dec.ReadValue()
		switch {
		case err == nil:
			s.documents++
			// A document ends with a newline, as kubectl prints it: the
			// output of a wait is a line.
			s.last = append(bytes.Clone(v), '\n')
			if s.doc(s.last) {
				s.decided = true
				s.stop()
			}
			continue
		case errors.Is(err, io.ErrUnexpectedEOF):
			s.partial = len(bytes.TrimSpace(dec.UnreadBuffer()))
		case err != io.EOF:
			// Not JSON: what the decoder holds from the bad value on.
			bad := bytes.TrimLeft(dec.UnreadBuffer(), " \t\r\n")
			s.doc(bytes.Clone(bad))
			s.decided = true
			s.stop()
		}
		break
	}
	// The command may print on after the decision, until it is stopped.
	_, _ = io.Copy(io.Discard, r)
}

// pluralS says n words: "1 byte", "3 bytes".
func pluralS(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
