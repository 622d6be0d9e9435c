package runner

import (
	"bytes"
	"context"
	"io"
	"time"

	"github.com/retry-dev/retry/acceptor"
)

// Streamer is a Source whose attempts can stream JSON documents (retry wait
// --watch over `kubectl get … -o json --watch`): the strategy evaluates its
// acceptors on each document as it comes, so that a state is seen when it
// happens rather than at the next poll.
type Streamer interface {
	Source
	// AttemptStream runs attempt n of at most max as Attempt does, reading
	// its stdout as a stream of JSON values and calling doc with each whole
	// one, in order, as it comes (doc owns the bytes). When doc returns
	// true the attempt is decided: the source stops it (as a timed-out
	// attempt is stopped) and returns a Result with Decided set and Stopped
	// nil. Stdout that is not JSON breaks the stream: doc gets the bytes
	// from where the stream stopped parsing, once, and the attempt is
	// decided whatever doc returns. Otherwise the attempt ends as Attempt's
	// do, and its Result's Stdout is the last whole document (empty when
	// none), which the strategy evaluates with the attempt's exit status.
	// Documents counts the documents passed to doc.
	AttemptStream(ctx context.Context, n, max int, doc func(doc []byte) bool) *Result
}

// DocumentAttempt is document doc of attempt n's stream as acceptors see
// it: the output of a successful command attempt.
func DocumentAttempt(n int, doc []byte) *acceptor.Attempt {
	return &acceptor.Attempt{
		Number:     n,
		Kind:       acceptor.CommandAttempt,
		StdoutTail: doc,
		Stdout:     func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(doc)), nil },
	}
}

// streamAttempt runs attempt n of a Streamer under actx and evaluates
// each document it streams: a document that succeeds or fails decides the
// attempt (the record is that document's, with the process's warnings and
// stderr); any other is reported (EventDocument) and the stream read on.
// A stream that ends by itself is evaluated as an attempt, on its last
// document.
func (s *Strategy) streamAttempt(actx context.Context, src Streamer, n int, start time.Time) Record {
	var (
		last    *acceptor.Attempt
		decided acceptor.Decision
		count   int
	)
	res := src.AttemptStream(actx, n, s.MaxAttempts, func(doc []byte) bool {
		count++
		a := DocumentAttempt(n, doc)
		d := s.Chain.Evaluate(a)
		last, decided = a, d
		if d.Directive == acceptor.Succeed || d.Directive == acceptor.Fail {
			return true
		}
		rec := Record{Number: n, Start: start, Duration: s.now().Sub(start), Result: &Result{Attempt: a, Documents: count}, Decision: d, Document: count}
		s.observe(Event{Kind: EventDocument, Record: &rec, Attempt: n, Time: s.now()})
		return false
	})
	if !res.Decided || last == nil {
		return s.evaluate(n, start, res)
	}
	if res.Attempt != nil {
		last.StderrTail = res.StderrTail
	}
	res.Attempt, res.Stopped = last, nil
	res.Number = n
	return Record{Number: n, Start: start, Duration: s.now().Sub(start), Result: res, Decision: decided, Document: count}
}
