package jmes

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/retry-dev/retry/acceptor"
)

// Query is the projection of --query EXPR: a JMESPath expression applied to
// the final attempt's stdout. It is safe for concurrent use.
type Query struct {
	expr   *jmesExpr
	decode func(io.Reader) (any, error)
	// plan builds stream, the pruning that writes the result while the
	// document is decoded (query_stream.go), nil when the expression does
	// not project over an array; chunk is the elements per evaluation (0:
	// streamChunk).
	plan   sync.Once
	stream *pruning
	chunk  int
}

// NewQuery compiles expr, as path matchers do: an empty or invalid
// expression, an unknown function or a wrong number of arguments is an
// error.
func NewQuery(expr string) (*Query, error) {
	e, err := compileJMESPath(expr)
	if err != nil {
		return nil, err
	}
	return &Query{expr: e, decode: newDecoder([]string{expr}, false)}, nil
}

// Expression returns the expression as written.
func (q *Query) Expression() string { return q.expr.src }

// Warnings says, one line each, where the expression uses a deprecated
// syntax that is read anyway (a bare word in backquotes, `Ready`, read as
// the string "Ready").
func (q *Query) Warnings() []string { return q.expr.warnings }

// writeJSON writes the result v as compact JSON followed by a newline:
// object keys sorted, nothing HTML-escaped, numbers as encoding/json
// writes them. A result that JSON cannot hold (+Inf from an overflowing
// sum(), an expression reference) is an error.
func (q *Query) writeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	w := jsonWriter{b: &b}
	w.value(v)
	if w.bad != "" {
		return nil, fmt.Errorf("evaluating %q: the result holds %s, which JSON cannot represent", q.expr.src, w.bad)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// result evaluates the query on a's stdout. When the result holds a number
// that may have lost digits (2^53 or more) and the expression passes
// numbers through, it is computed again on stdout decoded with such integers
// exact (exact.go), so that 12345678901234567890 prints as it was written.
func (q *Query) result(a *acceptor.Attempt) (any, error) {
	doc, err := acceptor.StdoutDocument(a, q.decode)
	if err != nil {
		return nil, err
	}
	v, err := q.expr.search(doc)
	if err != nil {
		return nil, fmt.Errorf("evaluating %q: %v", q.expr.src, err)
	}
	if ev, ok := q.expr.exactAgain(v, a, nil); ok {
		v = ev
	}
	return v, nil
}
