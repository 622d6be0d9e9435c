// Package sinks holds the consumers of the runner's events: the text log
// and its status line, the JSON log, the CI markup (GitHub workflow
// commands, GitLab sections), the output of retried attempts, and the
// report. Events flow one way, runner → FanOut → sinks; no sink reads the
// plan's options: what a sink needs travels in the event or in the small
// config it is given at construction.
package sinks

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/runner"
)

// A Sink consumes the runner's events, in the order the run makes them.
type Sink interface {
	Observe(e runner.Event)
}

// FanOut hands each event to its sinks in order: nil entries are skipped.
type FanOut []Sink

// Observe hands e to every sink of f, in order.
func (f FanOut) Observe(e runner.Event) {
	for _, s := range f {
		if s != nil {
			s.Observe(e)
		}
	}
}

// Lines is where retry's own lines go (the log view of the shared stderr,
// or the --log-file), one at a time, each "retry: " and its text with
// secrets redacted (echo.Untrusted: the text may repeat what an attempt
// said). Its lock is shared by every sink that writes on
// stderr, so that a retried attempt's output and the CI markup never
// interleave with a log line.
type Lines struct {
	sync.Mutex
	w io.Writer
	// oneLine: a line break in a message is escaped, so that a message
	// stays one line (GitHub reads a line of its own as a workflow
	// command).
	oneLine bool
	// json: warnings are JSON log lines (--log-format json), as every
	// other line retry writes.
	json bool
}

// WarnAsJSON makes warnings JSON log lines ({"retry":"warning",…}), for
// --log-format json.
func (l *Lines) WarnAsJSON() { l.json = true }

// NewLines returns the lines written on w; oneLine escapes line breaks in
// messages (set it when the CI markup is GitHub's).
func NewLines(w io.Writer, oneLine bool) *Lines { return &Lines{w: w, oneLine: oneLine} }

// Printf writes one line of retry's, its secrets redacted.
func (l *Lines) Printf(format string, args ...any) {
	l.Lock()
	defer l.Unlock()
	l.printfLocked(format, args...)
}

func (l *Lines) printfLocked(format string, args ...any) {
	fmt.Fprintf(l.w, "retry: %s\n", echo.Sprintf(format, args...).Line(l.oneLine))
}

// Warn prints a warning; a warning is printed even with -q: it reports
// something that went wrong.
func (l *Lines) Warn(format string, args ...any) {
	if !l.json {
		l.Printf(format, args...)
		return
	}
	j, err := echo.Marshal(&WarningLine{Retry: "warning", Message: fmt.Sprintf(format, args...), Time: stamp(time.Now()), Version: SchemaVersion})
	if err != nil {
		l.Printf(format, args...) // a string always encodes: never reached
		return
	}
	l.write(j)
}

// write writes j, a JSON log line, redacted, under the lock.
func (l *Lines) write(j echo.JSON) {
	l.Lock()
	defer l.Unlock()
	_, _ = l.w.Write(append(j.Bytes(), '\n')) // as for the printed lines: a log that cannot be written has nowhere else to go
}

// A Log is the text or the JSON log: a sink that also writes the lines of
// a durable invocation (--state) that no strategy event carries.
type Log interface {
	Sink
	// Event writes such a line: its message for the text log, all of it
	// for the JSON log.
	Event(e StateEvent)
}
