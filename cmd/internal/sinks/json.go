package sinks

import (
	"time"

	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/human"
	"github.com/retry-dev/retry/runner"
)

// JSONConfig is what the JSON log knows of the run beyond its events.
type JSONConfig struct {
	Wait    bool   // the run is a wait: a poll the fallback repeats is "pending"
	Verbose bool   // -v: each attempt's acceptor trace
	State   string // the --state file of a durable sequence
}

// JSON is the JSON log: one object per event, each line starting with
// {"retry":EVENT and ending with "version":SchemaVersion (docs/logs.md has
// the schema).
type JSON struct {
	cfg   JSONConfig
	lines *Lines
}

// NewJSON returns the JSON log of a run, written on lines.
func NewJSON(cfg JSONConfig, lines *Lines) *JSON { return &JSON{cfg: cfg, lines: lines} }

// The lines of the JSON log, one type per event. Each starts with "retry"
// (the event's name, so that a reader of a stderr shared with the
// command keeps the lines starting with {"retry":) and ends with "version";
// the fields between are in alphabetical order, as they always were.
type (
	// AttemptLine is an attempt that ended: the attempt as the report shows
	// it, then the line's own fields.
	AttemptLine struct {
		Retry string `json:"retry"` // "attempt"
		Attempt
		Event       string      `json:"event"`
		MaxAttempts int         `json:"max_attempts"` // 0: unlimited
		Pending     string      `json:"pending,omitempty"`
		Time        string      `json:"time"`
		Trace       []TraceStep `json:"trace,omitempty"` // -v: every acceptor evaluated
		Version     int         `json:"version"`
	}
	// DocumentLine is a JSON document of a streamed attempt (wait
	// --watch) that neither succeeds nor fails: the stream is read on.
	DocumentLine struct {
		Retry     string      `json:"retry"` // "document"
		Acceptor  string      `json:"acceptor,omitempty"`
		Attempt   int         `json:"attempt"`
		Directive string      `json:"directive"`
		Document  int         `json:"document"`
		Event     string      `json:"event"`
		Pending   string      `json:"pending,omitempty"`
		Time      string      `json:"time"`
		Trace     []TraceStep `json:"trace,omitempty"` // -v: every acceptor evaluated
		Value     string      `json:"value,omitempty"`
		Version   int         `json:"version"`
	}
	// BucketWaitLine is a wait for the scope's bucket to refill.
	BucketWaitLine struct {
		Retry     string `json:"retry"` // "bucket_wait"
		Attempt   int    `json:"attempt"`
		Available int    `json:"available"`
		Capacity  int    `json:"capacity"`
		Cost      int    `json:"cost"`
		Event     string `json:"event"`
		Time      string `json:"time"`
		WaitMS    int64  `json:"wait_ms"`
		Version   int    `json:"version"`
	}
	// HookLine is an --on-retry run.
	HookLine struct {
		Retry      string  `json:"retry"` // "on_retry"
		Attempt    int     `json:"attempt"`
		DurationMS float64 `json:"duration_ms"`
		Error      string  `json:"error,omitempty"`
		Event      string  `json:"event"`
		Time       string  `json:"time"`
		Version    int     `json:"version"`
	}
	// WarningLine is a warning of retry's (a --query that cannot be
	// evaluated, --insecure, deprecated JMESPath syntax, a sink that
	// failed): the text log's line as its message.
	WarningLine struct {
		Retry   string `json:"retry"` // "warning"
		Message string `json:"message"`
		Time    string `json:"time"`
		Version int    `json:"version"`
	}
	// OutputLine is a line of a retried attempt's output ("stdout", an
	// HTTP "body"), redacted, as Text; or says how much of that output was
	// left out ("not_shown").
	OutputLine struct {
		Retry   string `json:"retry"` // "stdout", "body" or "not_shown"
		Attempt int    `json:"attempt"`
		Bytes   int64  `json:"bytes,omitempty"` // not_shown: how many
		// Text is one line of the output with its line break, or a piece
		// of a line longer than maxTextPiece (no line break but the
		// last's).
		Text    string `json:"text,omitempty"`
		Version int    `json:"version"`
	}
	// EndLine is the end of the run.
	EndLine struct {
		Retry     string `json:"retry"` // "end"
		Attempts  int    `json:"attempts"`
		ElapsedMS int64  `json:"elapsed_ms"`
		Error     string `json:"error,omitempty"`
		Event     string `json:"event"`
		Outcome   string `json:"outcome"`
		State     string `json:"state,omitempty"` // the --state file
		Time      string `json:"time"`
		Version   int    `json:"version"`
	}
)

// StateEvent is a line of a durable invocation (--state) that no strategy
// event carries: the text log writes its Message, the JSON log all of it.
// The fields each kind sets are listed in docs/logs.md.
type StateEvent struct {
	Retry           string   `json:"retry"` // the kind: new_sequence, unfinished, not_due, ended, busy, unreachable
	Attempt         int      `json:"attempt,omitempty"`
	Attempts        int      `json:"attempts,omitempty"`
	Due             string   `json:"due,omitempty"`
	DueInMS         *int64   `json:"due_in_ms,omitempty"`
	Event           string   `json:"event"`
	ExitCode        *int     `json:"exit_code,omitempty"`
	Message         string   `json:"message"`
	PreviousCommand []string `json:"previous_command,omitempty"`
	PreviousStatus  string   `json:"previous_status,omitempty"`
	Reason          string   `json:"reason,omitempty"`
	State           string   `json:"state"`
	Status          string   `json:"status,omitempty"`
	Time            string   `json:"time"`
	Version         int      `json:"version"`
}

// Event writes e, with the kind, the state file, the time and the version
// filled in.
func (l *JSON) Event(e StateEvent) {
	e.Event, e.State, e.Time, e.Version = e.Retry, l.cfg.State, stamp(time.Now()), SchemaVersion
	l.write(&e)
}

// Observe writes the line of e, if it has one.
func (l *JSON) Observe(e runner.Event) {
	t := stamp(e.Time)
	switch e.Kind {
	case runner.EventAttemptEnd:
		line := &AttemptLine{Retry: "attempt", Attempt: attemptOf(e.Record), Event: "attempt", MaxAttempts: e.MaxAttempts, Time: t, Version: SchemaVersion}
		if human.NotYet(l.cfg.Wait, e.Record) {
			line.Pending = human.Pending(e.Record)
		}
		if l.cfg.Verbose {
			line.Trace = traceOf(e.Record.Decision.Trace)
		}
		l.write(line)
	case runner.EventDocument:
		a := attemptOf(e.Record)
		line := &DocumentLine{Retry: "document", Acceptor: a.Acceptor, Attempt: a.Attempt, Directive: a.Directive, Document: e.Record.Document,
			Event: "document", Time: t, Value: a.Value, Version: SchemaVersion}
		if human.NotYet(l.cfg.Wait, e.Record) {
			line.Pending = human.Pending(e.Record)
		}
		if l.cfg.Verbose {
			line.Trace = traceOf(e.Record.Decision.Trace)
		}
		l.write(line)
	case runner.EventBucketWait:
		l.write(&BucketWaitLine{Retry: "bucket_wait", Attempt: e.Record.Number, WaitMS: e.Wait.Milliseconds(),
			Cost: e.Empty.Cost, Available: e.Empty.Available, Capacity: e.Empty.Capacity, Event: "bucket_wait", Time: t, Version: SchemaVersion})
	case runner.EventHook:
		line := &HookLine{Retry: "on_retry", Attempt: e.Attempt, DurationMS: ms(e.Hook.Duration), Event: "on_retry", Time: t, Version: SchemaVersion}
		if e.Hook.Err != nil {
			line.Error = e.Hook.Err.Error()
		}
		l.write(line)
	case runner.EventEnd:
		line := &EndLine{Retry: "end", Attempts: human.AttemptCount(e.Outcome), ElapsedMS: e.Outcome.Elapsed.Milliseconds(),
			Event: "end", Outcome: e.Outcome.End.String(), State: l.cfg.State, Time: t, Version: SchemaVersion}
		if e.Outcome.Err != nil {
			line.Error = e.Outcome.Err.Error()
		}
		l.write(line)
	}
}

// write writes line, a pointer to one of the line types, as one line, its
// secrets redacted once it is encoded: echo.JSON.Bytes walks every string of
// the encoded value, whatever type built it, and hides the values of
// secret keys, so a field added to a line is redacted without being named.
func (l *JSON) write(line any) {
	j, err := echo.Marshal(line)
	if err != nil {
		l.lines.Warn("JSON log: %v", err)
		return
	}
	l.lines.write(j)
}
