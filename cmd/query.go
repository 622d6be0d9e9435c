package cmd

import (
	"fmt"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/runner/output"
)

// writeQuery writes the --query projection of the last attempt's stdout to
// stdout. The result is held until it is whole — in memory up to 1 MiB
// (output.DefaultSpillThreshold), then in an unlinked temporary file, as
// final mode keeps stdout — so that a query that cannot be evaluated
// writes nothing, while a projection over every element of a large
// document is written as it is computed (jmes.Query.WriteAttempt) rather
// than built in memory.
//
// succeeded says whether the wait reached its success state: a wait that
// did not still writes the projection of its last state, and a query that
// cannot be evaluated on it says so without claiming a success.
func writeQuery(p *plan.Plan, a *acceptor.Attempt, succeeded bool) error {
	sink := newQuerySink()
	defer func() { sink.c.Close() }()
	err := p.Query.WriteAttempt(a, p.QueryText, sink)
	if kept := sink.c.Err(); kept != nil {
		return &output.StreamError{Stream: "stdout", Keeping: true, Err: kept}
	}
	switch {
	case err != nil && succeeded:
		return fmt.Errorf("--query: the wait succeeded, but the query cannot be evaluated on its output (exit %d): %v", exit.Query, err)
	case err != nil:
		return fmt.Errorf("--query: the query cannot be evaluated on the last output: %v", err)
	}
	r, err := sink.c.Open()
	if err != nil {
		return &output.StreamError{Stream: "stdout", Keeping: true, Err: err}
	}
	return copyStdout(p.IO.Out, r)
}

// querySink is where a --query result is written (a jmes.Sink) over an
// output.Capture: Reset starts a new one.
type querySink struct{ c *output.Capture }

func newQuerySink() *querySink { return &querySink{c: newQueryCapture()} }

func newQueryCapture() *output.Capture {
	c := output.NewCapture("", output.DefaultSpillThreshold, 0)
	c.MemoryFallback = output.DefaultMemoryFallback
	return c
}

func (s *querySink) Write(p []byte) (int, error) { return s.c.Write(p) }

func (s *querySink) Reset() {
	s.c.Close()
	s.c = newQueryCapture()
}
