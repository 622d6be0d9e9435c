package sinks

import (
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/sources"
	"github.com/retry-dev/retry/runner"
)

// SchemaVersion is the version of the JSON log's lines and of the report
// (docs/logs.md), in their "version" field. It changes
// when a field changes its meaning or goes away; a new field does not
// change it. Version 2: a --tcp attempt's connect is under "tcp", no
// longer under "http". Version 3: a "stdout" or "body" line holds a line
// of the repeated output as "text" (it was a frame the raw output
// followed), and a -v trace's entries are TraceStep (they were
// acceptor.Step with Go's field names and a numeric state).
const SchemaVersion = 3

// Attempt is one attempt as the JSON log and the report show it. Its
// fields are in the alphabetical order of their JSON names, the order the
// lines always had.
type Attempt struct {
	// Acceptor is who decided: the acceptor's name, or "fallback" or
	// "retry safety"; "" for an attempt nothing decided (stopped).
	Acceptor   string  `json:"acceptor,omitempty"`
	Attempt    int     `json:"attempt"`
	DelayMS    int64   `json:"delay_ms"` // the delay before the next attempt
	Detail     string  `json:"detail,omitempty"`
	Directive  string  `json:"directive"` // "stopped" for an attempt nothing decided
	DurationMS float64 `json:"duration_ms"`
	Error      string  `json:"error,omitempty"`
	ErrorCode  string  `json:"error_code,omitempty"`
	ExitCode   *int    `json:"exit_code,omitempty"` // absent for HTTP, TCP and a command that did not start
	HTTP       *HTTP   `json:"http,omitempty"`
	InARow     int     `json:"in_a_row,omitempty"` // successes in a row, with --consecutive
	OnRetry    *Hook   `json:"on_retry,omitempty"` // the --on-retry hook run before it
	Reason     string  `json:"reason,omitempty"`   // of a retry directive: server-side, throttling, timeout
	// RetryAfterMS is the server's retry-after hint as the delay honoured
	// it (capped by --max-retry-after).
	RetryAfterMS int64  `json:"retry_after_ms,omitempty"`
	Start        string `json:"start"`            // RFC 3339, UTC
	Status       int    `json:"status,omitempty"` // the HTTP status
	Stopped      string `json:"stopped,omitempty"`
	TCP          *TCP   `json:"tcp,omitempty"` // a --tcp connect that was accepted
	TimedOut     bool   `json:"timed_out,omitempty"`
	Value        string `json:"value,omitempty"` // what the deciding acceptor saw
}

// HTTP is an attempt's exchange (runner.Exchange) as the JSON log and the
// report show it: headers as objects of arrays of values (as curl's
// %{header_json}).
type HTTP struct {
	BodyBytes      *int64              `json:"body_bytes,omitempty"` // absent when the body was not read whole
	Error          string              `json:"error,omitempty"`
	FinalURL       string              `json:"final_url,omitempty"`
	Headers        map[string][]string `json:"headers,omitempty"`
	Method         string              `json:"method,omitempty"`
	Redirects      int                 `json:"redirects,omitempty"`
	RequestHeaders map[string][]string `json:"request_headers,omitempty"`
	Status         string              `json:"status,omitempty"` // the status line
	URL            string              `json:"url,omitempty"`
}

// TraceStep is one acceptor evaluated for an attempt (acceptor.Step), as
// the JSON log's -v trace shows it: the acceptor, its expression when it
// has one, whether it matched, the state it leads to as a word (success,
// failure, retry, throttle) and what it saw, hidden when the expression
// names a secret.
type TraceStep struct {
	Acceptor string `json:"acceptor"`
	Expr     string `json:"expr,omitempty"`
	Matched  bool   `json:"matched"`
	State    string `json:"state"`
	Value    string `json:"value,omitempty"`
}

// traceOf is a decision's trace as the JSON log shows it; nil when empty.
func traceOf(steps []acceptor.Step) []TraceStep {
	if len(steps) == 0 {
		return nil
	}
	out := make([]TraceStep, len(steps))
	for i, s := range steps {
		out[i] = TraceStep{Acceptor: s.Name, Expr: s.Expr, Matched: s.Matched, State: s.State.String(), Value: s.Value}
	}
	return out
}

// TCP is a --tcp attempt's accepted connect (runner.Exchange) as the JSON
// log and the report show it.
type TCP struct {
	Connected string `json:"connected"` // the address connected to
}

// Hook is an --on-retry run.
type Hook struct {
	DurationMS float64 `json:"duration_ms"`
	Error      string  `json:"error,omitempty"`
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// stamp is t as the lines and the report write times: RFC 3339, UTC.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// attemptOf is r as the JSON log and the report show it.
func attemptOf(r *runner.Record) Attempt {
	a := r.Result.Attempt
	j := Attempt{
		Attempt:    r.Number,
		Start:      stamp(r.Start),
		DurationMS: ms(r.Duration),
		Directive:  r.Decision.Directive.String(),
		DelayMS:    r.Delay.Milliseconds(),
		Reason:     r.Decision.Directive.Reason(),
		Value:      r.Decision.Value,
		Detail:     r.Decision.Detail,
		Status:     a.Status,
		ErrorCode:  a.ErrorCode,
		TimedOut:   a.TimedOut,
		InARow:     r.Streak,
	}
	if r.Decision.Directive == acceptor.NoDecision && r.Result.Stopped != nil {
		j.Directive, j.Stopped = "stopped", r.Result.Stopped.Error()
	}
	switch r.Decision.Source {
	case acceptor.FromAcceptor:
		j.Acceptor = r.Decision.Name
	case acceptor.NoSource:
		// A stopped attempt: nothing evaluated it, Directive says so.
	default:
		j.Acceptor = r.Decision.Source.String() // "fallback" or "retry safety"
	}
	if a.HasExitCode() && r.Document == 0 { // a deciding document's command had not ended
		j.ExitCode = &a.ExitCode
	}
	if a.Err != nil {
		j.Error = a.Err.Error()
	}
	if r.RetryAfter > 0 {
		j.RetryAfterMS = r.RetryAfter.Milliseconds()
	}
	if h := r.Hook; h != nil {
		j.OnRetry = &Hook{DurationMS: ms(h.Duration)}
		if h.Err != nil {
			j.OnRetry.Error = h.Err.Error()
		}
	}
	if x := r.Result.Exchange; x != nil {
		// The source says which shape its exchange has (sources.Table).
		switch sources.Of(a.Kind).Exchange {
		case "tcp":
			j.TCP = &TCP{Connected: x.Connected}
		case "http":
			j.HTTP = httpOf(x)
		}
	}
	return j
}

// httpOf is x as the JSON log and the report show it.
func httpOf(x *runner.Exchange) *HTTP {
	h := &HTTP{Error: x.Error, FinalURL: x.FinalURL, Method: x.Method,
		Redirects: x.Redirects, Status: x.Status, URL: x.URL,
		Headers: nonEmpty(x.Header), RequestHeaders: nonEmpty(x.RequestHeader)}
	if x.BodyRead {
		h.BodyBytes = &x.BodyBytes
	}
	return h
}

// nonEmpty is h, nil when it has no header (omitted from the JSON).
func nonEmpty(h map[string][]string) map[string][]string {
	if len(h) == 0 {
		return nil
	}
	return h
}
