package sinks

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

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

// Report is the --report file (README "Machine-readable logs"): the
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
// exit status code and every attempt, with the tails of its output.
func WriteReport(cfg ReportConfig, out *runner.Outcome, code int) error {
	rep := &Report{
		Version:   SchemaVersion,
		Attempts:  make([]ReportAttempt, len(out.Attempts)),
		Command:   cfg.Command,
		ElapsedMS: ms(out.Elapsed),
		ExitCode:  code,
		Outcome:   out.End.String(),
		Started:   stamp(out.Start),
		State:     cfg.State,
		Target:    redact.Argv(cfg.Target),
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
	redactStrings(rep)
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp := cfg.Path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, cfg.Path)
}

// ReportTail bounds the tail of each stream kept per attempt in the
// --report file.
const ReportTail = 2 << 10

// tailText is the last ReportTail bytes of b as valid UTF-8 (a rune
// cut at the start is dropped), redacted.
func tailText(b []byte) string {
	if len(b) > ReportTail {
		b = b[len(b)-ReportTail:]
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	return redactText(strings.ToValidUTF8(string(b), "\uFFFD"))
}

// The redaction patterns, compiled on first use: compiling them costs
// ~0.06 ms, which a run that never writes a report or a retried attempt's
// output should not pay at start-up.
var (
	// secretLine is a header-like line of a secret header, or a
	// password=/token=/secret= assignment.
	secretLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?im)^(\s*(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|x-amz-security-token)\s*:\s*).+$`)
	})
	secretPair = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b((?:password|passwd|secret|token|api[_-]?key|access[_-]?key)\s*[=:]\s*)("[^"]*"|[^\s"&,;]+)`)
	})
	urlUser = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]+@`) })
)

// redactText hides what commonly leaks into output: credentials in URLs
// (scheme://user:password@), secret headers (Authorization: …) and
// password=, token=, secret= and api_key= values.
func redactText(s string) string {
	s = urlUser().ReplaceAllString(s, "${1}"+redact.Placeholder+"@")
	s = secretLine().ReplaceAllString(s, "${1}"+redact.Placeholder)
	return secretPair().ReplaceAllString(s, "${1}"+redact.Placeholder)
}
