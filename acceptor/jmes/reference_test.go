package jmes

import (
	"fmt"

	"github.com/retry-dev/retry/acceptor"
)

// The whole-result forms of a query, which the tests check the streaming
// one (query_stream.go) and the exact numbers against: the query applied
// to a document or an attempt's stdout, its result written at once.

// apply evaluates the query on doc (a document as acceptor.DecodeJSON returns
// one) and writes the result as compact JSON followed by a newline: object
// keys sorted, nothing HTML-escaped, numbers as encoding/json writes them. A
// result that JSON cannot hold (+Inf from an overflowing sum(), an expression reference)
// and a JMESPath runtime error are errors; so is a failure inside the
// JMESPath library.
func (q *Query) apply(doc any) ([]byte, error) {
	v, err := q.expr.search(doc)
	if err != nil {
		return nil, fmt.Errorf("evaluating %q: %v", q.expr.src, err)
	}
	return q.writeJSON(v)
}

// ApplyAttempt applies the query to a's stdout parsed as JSON (empty
// stdout is {}), building only the parts of the document the expression
// can reach, and writes the result as compact JSON followed by a newline:
// object keys sorted, nothing HTML-escaped, numbers as encoding/json writes
// them. A result that JSON cannot hold (+Inf from an overflowing sum(), an expression
// reference) and a JMESPath runtime error are errors; so is a failure
// inside the JMESPath library. Stdout that is not JSON is an error
// wrapping acceptor.ErrNotJSON.
func (q *Query) ApplyAttempt(a *acceptor.Attempt) ([]byte, error) {
	v, err := q.result(a)
	if err != nil {
		return nil, err
	}
	return q.writeJSON(v)
}

// applyText evaluates the query on doc and writes the result as text, the
// way the AWS CLI's --output text writes scalars and lists, for shell
// variables: a string unquoted; a number or a boolean as JSON writes it;
// null as an empty line; an array one element per line, each element as
// text (a nested array or object as compact JSON); an object as compact
// JSON. Every line ends with a newline; an empty array writes nothing.
// The errors are apply's.
func (q *Query) applyText(doc any) ([]byte, error) {
	v, err := q.expr.search(doc)
	if err != nil {
		return nil, fmt.Errorf("evaluating %q: %v", q.expr.src, err)
	}
	return q.writeText(v)
}

// ApplyAttemptText is ApplyAttempt with the result written as text, the
// way the AWS CLI's --output text writes it (see applyText): for shell
// variables.
func (q *Query) ApplyAttemptText(a *acceptor.Attempt) ([]byte, error) {
	v, err := q.result(a)
	if err != nil {
		return nil, err
	}
	return q.writeText(v)
}
