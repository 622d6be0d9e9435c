package sinks

import (
	"bytes"
	"strings"

	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/writepolicy"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// ReportConfig is what the report says of the run beyond its outcome.
type ReportConfig struct {
	Path        string   // --report FILE
	Command     string   // run or wait
	Target      []string // the command or URL, redacted
	Consecutive int      // --consecutive, shown when above 1
	State       string   // the --state file of a durable sequence
}

// Report is the --report file (docs/logs.md): the
// schema's version first, then the run's fields in alphabetical order.
type Report struct {
	Version     int             `json:"version"`
	Attempts    []ReportAttempt `json:"attempts"`
	Command     string          `json:"command"` // run or wait
	Consecutive int             `json:"consecutive,omitempty"`
	ElapsedMS   float64         `json:"elapsed_ms"`
	Error       string          `json:"error,omitempty"`
	ExitCode    int             `json:"exit_code"`
	Outcome     string          `json:"outcome"`
	Started     string          `json:"started"`
	State       string          `json:"state,omitempty"` // attempts carry the sequence's numbers
	Target      []string        `json:"target"`
}

// ReportAttempt is an attempt of the report: as the JSON log shows it,
// with the last bytes of its stdout and stderr (ReportTail each).
type ReportAttempt struct {
	Attempt
	StderrTail string `json:"stderr_tail,omitempty"`
	StdoutTail string `json:"stdout_tail,omitempty"`
}

// WriteReport writes the JSON report of --report: the run's outcome, its
// exit status code and every attempt, with the tails of its output. The
// write policy writes it (a regular file atomically, a FIFO or a device
// through); waiting for a FIFO's reader ends when done is closed. Its
// secrets are redacted once it is encoded (echo.JSON: every string, and
// the values of secret keys).
func WriteReport(cfg ReportConfig, out *runner.Outcome, code int, done <-chan struct{}) error {
	rep := &Report{
		Version:   SchemaVersion,
		Attempts:  make([]ReportAttempt, len(out.Attempts)),
		Command:   cfg.Command,
		ElapsedMS: ms(out.Elapsed),
		ExitCode:  code,
		Outcome:   out.End.String(),
		Started:   stamp(out.Start),
		State:     cfg.State,
		Target:    cfg.Target, // redacted by the plan (Describe)
	}
	if cfg.Consecutive > 1 {
		rep.Consecutive = cfg.Consecutive
	}
	if out.Err != nil {
		rep.Error = out.Err.Error()
	}
	for i := range out.Attempts {
		r := &out.Attempts[i]
		rep.Attempts[i].Attempt = attemptOf(r)
		if a := r.Result.Attempt; a != nil {
			rep.Attempts[i].StdoutTail, rep.Attempts[i].StderrTail = tailText(a.StdoutTail), tailText(a.StderrTail)
		}
	}
	j, err := echo.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return writepolicy.Replace(cfg.Path, append(j.Bytes(), '\n'), 0o600, done)
}

// ReportTail bounds the tail of each stream kept per attempt in the
// --report file.
const ReportTail = output.ReportTail

// tailText is the last ReportTail bytes of b as valid UTF-8, redacted.
// b keeps a byte more (plan: KeepTail) when there is one, which says
// whether the window starts a line: a window cut inside a line starts
// after it (windowStart), where a rule reads every name it needs.
func tailText(b []byte) string {
	if len(b) > ReportTail {
		b = b[windowStart(bytes.NewReader(b), int64(len(b)-ReportTail), int64(len(b)), make([]byte, ReportTail)):]
	}
	return echo.Untrusted(strings.ToValidUTF8(string(b), "\uFFFD")).String()
}
