package sinks

import (
	"github.com/retry-dev/retry/cmd/internal/writepolicy"
	"github.com/retry-dev/retry/runner"
)

// End is how a run ended, as the end-of-run sinks see it: its outcome and
// its exit status are known.
type End struct {
	Command string          // run or wait
	Outcome *runner.Outcome // nil: no attempt was made (a --state invocation that was not due)
	Status  int             // the run's exit status, before its end sinks were written
	// Done is closed when a signal comes: a sink waiting for a FIFO's
	// reader gives up.
	Done <-chan struct{}
}

// An EndSink is written once, when the run has ended: the --log-file's
// close, the --report, the GitHub step outputs and summary, any later
// file that sums a run up. EndSinks is to the end of a run what FanOut is
// to its events.
type EndSink interface {
	// Name is how the line that reports the sink's failure names it:
	// "--report FILE".
	Name() string
	// Finish writes what the sink keeps of e. An error is a sink that
	// could not be written, which makes the run's exit status 74; a sink
	// whose problems are warnings (the GitHub files) warns and returns nil.
	Finish(e End) error
}

// EndSinks finishes its sinks in order: a sink that warns comes before the
// --log-file it warns into is closed.
type EndSinks []EndSink

// SinkError is an end sink that could not be written.
type SinkError struct {
	Sink string // the sink's Name
	Err  error
}

// Finish finishes every sink of s with e, in order, and returns those that
// could not be written.
func (s EndSinks) Finish(e End) []SinkError {
	var failed []SinkError
	for _, sink := range s {
		if err := sink.Finish(e); err != nil {
			failed = append(failed, SinkError{Sink: sink.Name(), Err: err})
		}
	}
	return failed
}

// LogFile is the --log-file as an end sink: closing it gives up on a
// FIFO's reader that never came and says whether every line reached it.
type LogFile struct{ Stream *writepolicy.Stream }

// Name is "--log-file PATH".
func (f LogFile) Name() string { return "--log-file " + f.Stream.Path() }

// Finish closes the stream (writepolicy.Stream.Close).
func (f LogFile) Finish(End) error { return f.Stream.Close() }

// ReportFile is the --report as an end sink.
type ReportFile struct{ Config ReportConfig }

// Name is "--report PATH".
func (r ReportFile) Name() string { return "--report " + r.Config.Path }

// Finish writes the report (WriteReport) of a run that made attempts;
// without one there is nothing to report.
func (r ReportFile) Finish(e End) error {
	if e.Outcome == nil {
		return nil
	}
	return WriteReport(r.Config, e.Outcome, e.Status, e.Done)
}
