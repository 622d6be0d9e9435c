package sinks

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/human"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/redact"
)

// JSONConfig is what the JSON log knows of the run beyond its events.
type JSONConfig struct {
	Wait    bool   // the run is a wait: a poll the fallback repeats is "pending"
	Verbose bool   // -v: each attempt's acceptor trace
	State   string // the --state file of a durable sequence
}

// JSON is the JSON log: one object per event, each line starting with
// {"retry":EVENT.
type JSON struct {
	cfg   JSONConfig
	lines *Lines
}

// NewJSON returns the JSON log of a run, written on lines.
func NewJSON(cfg JSONConfig, lines *Lines) *JSON { return &JSON{cfg: cfg, lines: lines} }

// Event writes a line of a durable invocation (--state) that no strategy
// event carries: an object with the event kind and fields.
func (l *JSON) Event(kind, text string, fields map[string]any) {
	obj := map[string]any{"event": kind, "state": l.cfg.State, "message": text, "time": time.Now().UTC().Format(time.RFC3339Nano)}
	for k, v := range fields {
		obj[k] = v
	}
	b, _ := json.Marshal(obj)
	b = redact.JSON(b)
	lead, _ := json.Marshal(kind) // {"retry":EVENT first, as every JSON log line
	l.lines.write(fmt.Appendf(nil, "{\"retry\":%s,%s\n", lead, b[1:]))
}

// Observe writes the JSON object of e, if it has one.
func (l *JSON) Observe(e runner.Event) {
	var obj map[string]any
	switch e.Kind {
	case runner.EventAttemptEnd:
		obj = recordJSON(e.Record)
		obj["event"] = "attempt"
		obj["max_attempts"] = e.MaxAttempts
		if human.NotYet(l.cfg.Wait, e.Record) {
			obj["pending"] = human.Pending(e.Record)
		}
		if l.cfg.Verbose {
			obj["trace"] = e.Record.Decision.Trace
		}
	case runner.EventBucketWait:
		obj = map[string]any{"event": "bucket_wait", "attempt": e.Record.Number, "wait_ms": e.Wait.Milliseconds(),
			"cost": e.Empty.Cost, "available": e.Empty.Available, "capacity": e.Empty.Capacity}
	case runner.EventHook:
		obj = map[string]any{"event": "on_retry", "attempt": e.Attempt, "duration_ms": float64(e.Hook.Duration.Microseconds()) / 1000}
		if e.Hook.Err != nil {
			obj["error"] = e.Hook.Err.Error()
		}
	case runner.EventEnd:
		obj = map[string]any{"event": "end", "outcome": e.Outcome.End.String(), "attempts": human.AttemptCount(e.Outcome),
			"elapsed_ms": e.Outcome.Elapsed.Milliseconds()}
		if l.cfg.State != "" {
			obj["state"] = l.cfg.State
		}
		if e.Outcome.Err != nil {
			obj["error"] = e.Outcome.Err.Error()
		}
	default:
		return
	}
	obj["time"] = e.Time.UTC().Format(time.RFC3339Nano)
	// Redacted once encoded: every string, whatever type holds it (the
	// acceptor trace's values too).
	b, _ := json.Marshal(obj)
	b = redact.JSON(b)
	// Every line of retry's JSON log starts with {"retry":EVENT, so that
	// with the command's stderr on the same stream a reader keeps the lines
	// starting with {"retry": (README "Machine-readable logs").
	lead, _ := json.Marshal(obj["event"])
	l.lines.write(fmt.Appendf(nil, "{\"retry\":%s,%s\n", lead, b[1:]))
}

// recordJSON is one attempt as the report and the JSON log show it.
func recordJSON(r *runner.Record) map[string]any {
	a := r.Result.Attempt
	m := map[string]any{
		"attempt":     r.Number,
		"start":       r.Start.UTC().Format(time.RFC3339Nano),
		"duration_ms": float64(r.Duration.Microseconds()) / 1000,
		"directive":   r.Decision.Directive.String(),
		"delay_ms":    r.Delay.Milliseconds(),
	}
	if reason := r.Decision.Directive.Reason(); reason != "" {
		m["reason"] = reason
	}
	if r.Decision.Directive == acceptor.NoDecision && r.Result.Stopped != nil {
		m["directive"] = "stopped"
		m["stopped"] = r.Result.Stopped.Error()
	}
	switch r.Decision.Source {
	case acceptor.FromAcceptor:
		m["acceptor"] = r.Decision.Name
	case acceptor.NoSource:
		// A stopped attempt: nothing evaluated it, "directive" says so.
	default:
		m["acceptor"] = r.Decision.Source.String() // "fallback" or "retry safety"
	}
	if r.Decision.Value != "" {
		m["value"] = r.Decision.Value
	}
	if r.Decision.Detail != "" {
		m["detail"] = r.Decision.Detail
	}
	if a.HasExitCode() {
		m["exit_code"] = a.ExitCode
	}
	if a.Status != 0 {
		m["status"] = a.Status
	}
	if a.ErrorCode != "" {
		m["error_code"] = a.ErrorCode
	}
	if a.Err != nil {
		m["error"] = a.Err.Error()
	}
	if a.TimedOut {
		m["timed_out"] = true
	}
	if r.RetryAfter > 0 {
		m["retry_after_ms"] = r.RetryAfter.Milliseconds()
	}
	if r.Streak > 0 {
		m["in_a_row"] = r.Streak
	}
	if h := r.Hook; h != nil {
		hook := map[string]any{"duration_ms": float64(h.Duration.Microseconds()) / 1000}
		if h.Err != nil {
			hook["error"] = h.Err.Error()
		}
		m["on_retry"] = hook
	}
	if len(r.Result.Info) > 0 {
		m["http"] = infoJSON(r.Result.Info)
	}
	return m
}
