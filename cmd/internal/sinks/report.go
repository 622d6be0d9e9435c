package sinks

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/writepolicy"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/redact"
)

// ReportConfig is what the report says of the run beyond its outcome.
type ReportConfig struct {
	Path        string   // --report FILE
	Command     string   // run or wait
	Target      []string // the command or URL, redacted
	Consecutive int      // --consecutive, shown when above 1
	State       string   // the --state file of a durable sequence
}

// WriteReport writes the JSON report of --report: the run's outcome, its
// exit status code and every attempt, with the tails of its output. The
// write policy writes it (a regular file atomically, a FIFO or a device
// through); waiting for a FIFO's reader ends when done is closed. Every
// string in it is redacted (redact.JSON), whatever type holds it.
func WriteReport(cfg ReportConfig, out *runner.Outcome, code int, done <-chan struct{}) error {
	attempts := make([]map[string]any, len(out.Attempts))
	for i := range out.Attempts {
		attempts[i] = recordJSON(&out.Attempts[i])
		addTails(attempts[i], out.Attempts[i].Result.Attempt)
	}
	rep := map[string]any{
		"command":    cfg.Command,
		"target":     redact.Argv(cfg.Target),
		"outcome":    out.End.String(),
		"exit_code":  code,
		"started":    out.Start.UTC().Format(time.RFC3339Nano),
		"elapsed_ms": float64(out.Elapsed.Microseconds()) / 1000,
		"attempts":   attempts,
	}
	if cfg.Consecutive > 1 {
		rep["consecutive"] = cfg.Consecutive
	}
	if out.Err != nil {
		rep["error"] = out.Err.Error()
	}
	if cfg.State != "" {
		rep["state"] = cfg.State // attempts carry the sequence's numbers
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	b = append(redact.JSON(b), '\n')
	return writepolicy.Replace(cfg.Path, b, 0o600, done)
}

// ReportTail bounds the tail of each stream kept per attempt in the
// --report file.
const ReportTail = 2 << 10

// addTails adds to an attempt of the report the last bytes of its stdout
// and stderr (ReportTail each), redacted, when there are any.
func addTails(m map[string]any, a *acceptor.Attempt) {
	if a == nil {
		return
	}
	if t := tailText(a.StdoutTail); t != "" {
		m["stdout_tail"] = t
	}
	if t := tailText(a.StderrTail); t != "" {
		m["stderr_tail"] = t
	}
}

// tailText is the last ReportTail bytes of b as valid UTF-8 (a rune
// cut at the start is dropped), redacted.
func tailText(b []byte) string {
	if len(b) > ReportTail {
		b = b[len(b)-ReportTail:]
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	return redact.Text(strings.ToValidUTF8(string(b), "\uFFFD"))
}
