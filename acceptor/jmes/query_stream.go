package jmes

import (
	"bytes"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/retry-dev/retry/acceptor"
)

// This file writes a --query result while the document is decoded, when
// the expression projects over an array of the document
// (Reservations[].Instances[].InstanceId): each chunk of the array's
// elements gives its part of the result (stream.go), which is encoded at
// once and dropped, so memory holds a chunk's results, never the whole
// list. Written as ApplyAttempt writes the list (`[` elements joined by `,`
// `]` and a newline; `[]` when empty) or as ApplyAttemptText does (a line
// per element), the bytes are the same. Nothing is written to stdout
// itself: a sink holds the result until it is whole, since the document may
// still turn out not to be JSON, or an element to fail the expression.

// A Sink holds a query's result as WriteAttempt writes it. Reset drops what
// was written: a document that repeats a key on the way to the streamed
// array keeps its last value, and the result starts again. A
// *bytes.Buffer is one.
type Sink interface {
	io.Writer
	Reset()
}

// WriteAttempt writes to sink what ApplyAttempt returns for a (with text,
// what ApplyAttemptText returns), byte for byte, and returns its errors.
// When the expression projects over an array of the document (a[].b,
// a.b[*].c, a[?x].y, see stream.go) the result is written a chunk of the
// array's elements at a time, as it is computed, and never held whole:
// memory stays bounded by a chunk whatever the number of elements.
// Otherwise the result is computed as ApplyAttempt computes it, then
// written. On an error, sink may hold part of a result: the caller drops
// it. A failed write to sink is returned as it is, and ends the writing.
func (q *Query) WriteAttempt(a *acceptor.Attempt, text bool, sink Sink) error {
	pl := q.streamPlan()
	if pl == nil {
		v, err := q.result(a)
		if err != nil {
			return err
		}
		return q.writeResult(sink, v, text)
	}
	w := &resultWriter{sink: sink, text: text}
	doc, err := acceptor.StdoutDocument(a, func(r io.Reader) (any, error) {
		d := &prunedDecoder{
			dec: jsontext.NewDecoder(r, jsonOptions()...),
			// The elements go once through the expression: decoded with
			// exact integers when it passes numbers through, which is what
			// ApplyAttempt ends with when a result holds one (exact.go).
			exact:   q.expr.exact,
			strs:    map[string]any{},
			results: map[string]*streamResult{},
			sinks:   map[string]*resultWriter{q.expr.src: w},
		}
		return d.streamedDocument(pl)
	})
	if err != nil {
		return err
	}
	if sd, ok := doc.(*streamedDoc); ok {
		if r, ok := sd.results[q.expr.src]; ok {
			if r.err != nil {
				return fmt.Errorf("evaluating %q: %v", q.expr.src, r.err)
			}
			return w.finish(q.expr.src)
		}
	}
	// Not streamed (the value at the path is not an array, or the
	// document has none): the expression is evaluated on the document,
	// which kept that value.
	v, err := q.expr.search(doc)
	if err != nil {
		return fmt.Errorf("evaluating %q: %v", q.expr.src, err)
	}
	return q.writeResult(sink, v, text)
}

// writeResult writes the whole result v to sink, as writeJSON (writeText
// with text) writes it.
func (q *Query) writeResult(sink Sink, v any, text bool) error {
	write := q.writeJSON
	if text {
		write = q.writeText
	}
	b, err := write(v)
	if err != nil {
		return err
	}
	_, err = sink.Write(b)
	return err
}

// streamPlan returns the pruning that streams the query's array with the
// query written as it comes, or nil when the query does not project over an
// array of the document. It is built at first use.
func (q *Query) streamPlan() *pruning {
	q.plan.Do(func() {
		an := newAnalyzer()
		p := &pathSet{an: an}
		p.add(q.expr, an.needOf(q.expr.src), true)
		if len(p.streams) == 0 {
			return
		}
		chunk := q.chunk
		if chunk <= 0 {
			chunk = streamChunk
		}
		if pl, ok := planStreams(an, p.rest, p.streams, chunk); ok {
			q.stream = pl
		}
	})
	return q.stream
}

// resultWriter encodes a streamed list result to a sink, chunk by chunk, as
// writeJSON (or writeText) encodes the whole list.
type resultWriter struct {
	sink  Sink
	text  bool
	buf   bytes.Buffer // a chunk's encoding
	n     int          // elements written
	bad   string       // the last value JSON cannot hold, as writeJSON reports it
	dirty bool         // sink holds something
	err   error        // a failed write to sink
}

// reset starts the result again (the streamed array's key came again).
func (w *resultWriter) reset() {
	if w.dirty {
		w.sink.Reset()
	}
	w.n, w.bad, w.dirty, w.err = 0, "", false, nil
}

// write encodes the results of a chunk. Once a value JSON cannot hold was
// met, the rest is still encoded (writeJSON reports the last such value)
// but no longer written.
func (w *resultWriter) write(list []any) {
	if w.err != nil || len(list) == 0 {
		return
	}
	w.buf.Reset()
	jw := jsonWriter{b: &w.buf}
	for _, v := range list {
		switch {
		case w.text:
			textLine(&jw, v)
		case w.n == 0:
			w.buf.WriteByte('[')
			jw.value(v)
		default:
			w.buf.WriteByte(',')
			jw.value(v)
		}
		w.n++
	}
	if jw.bad != "" {
		w.bad = jw.bad
	}
	if w.bad == "" {
		w.flush()
	}
}

func (w *resultWriter) flush() {
	if w.err != nil || w.buf.Len() == 0 {
		return
	}
	w.dirty = true
	_, w.err = w.sink.Write(w.buf.Bytes())
}

// finish ends the list; its errors are writeJSON's, and a failed write.
func (w *resultWriter) finish(src string) error {
	if w.bad != "" {
		return fmt.Errorf("evaluating %q: the result holds %s, which JSON cannot represent", src, w.bad)
	}
	w.buf.Reset()
	if !w.text {
		if w.n == 0 {
			w.buf.WriteByte('[')
		}
		w.buf.WriteString("]\n")
	}
	w.flush()
	return w.err
}
