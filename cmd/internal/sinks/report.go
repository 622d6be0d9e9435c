package sinks

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/retry-dev/retry/acceptor"
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
// exit status code and every attempt, with the tails of its output.
func WriteReport(cfg ReportConfig, out *runner.Outcome, code int) error {
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
	b, err := json.MarshalIndent(redactJSON(rep), "", "  ")
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

// redactJSON hides secrets in the strings of a JSON log event or report
// before they are encoded (redact.Text), in maps and slices at any depth.
func redactJSON(v any) any {
	switch x := v.(type) {
	case string:
		return redact.Text(x)
	case map[string]any:
		for k, e := range x {
			x[k] = redactJSON(e)
		}
	case map[string]string:
		out := make(map[string]string, len(x))
		for k, e := range x {
			out[k] = redact.Text(e)
		}
		return out
	case []map[string]any:
		for _, e := range x {
			redactJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = redactJSON(e)
		}
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = redact.Text(e)
		}
		return out
	}
	return v
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
