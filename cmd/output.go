package cmd

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/redact"
	"github.com/retry-dev/retry/runner/request"
)

// errorBodyLimit bounds the failed HTTP body written to stderr, as a
// terminal or a CI log wants it: the start of it, where the message is.
const errorBodyLimit = 64 << 10

// reportTailLimit bounds the tail of each stream kept per attempt in the
// --report file.
const reportTailLimit = 2 << 10

// httpSucceeded reports whether an HTTP run's last body is its output: the
// run succeeded, or a wait's last call was answered (2xx: its JSON is the
// state the wait reached). Otherwise, as curl -f, it goes to stderr.
func httpSucceeded(o *Options, out *runner.Outcome) bool {
	if out.End == runner.EndSuccess {
		return true
	}
	last := out.Last()
	return o.Wait && last != nil && !last.Result.Failed
}

// writeRetriedOutput writes, in final mode, the stdout of an attempt that
// is retried to stderr, framed by a line naming the attempt, so a CI log
// keeps every failure and stdout gets only the last attempt's. An HTTP body
// is bounded (errorBodyLimit).
func (l *logger) writeRetriedOutput(r *runner.Record) {
	if err := l.writeAttemptStdout(r); err != nil {
		l.warn("%s: stdout: %v", l.attemptLabel(r.Number), err)
	}
}

func (l *logger) writeAttemptStdout(r *runner.Record) error {
	rc, err := r.Result.OpenStdout()
	if err != nil {
		return err
	}
	defer rc.Close()
	var src io.Reader = rc
	if l.p.http {
		src = io.LimitReader(rc, errorBodyLimit+1)
	}
	// Peek: an attempt that wrote nothing gets no frame.
	var first [1]byte
	n, err := io.ReadFull(src, first[:])
	if n == 0 {
		if err == io.EOF {
			return nil
		}
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.o.IO.ErrOut
	writeFrame(l.o, l.p, r.Number, l.maxAttempts)
	tw := &trailingNewline{w: w}
	if l.p.http {
		return copyBounded(tw, io.MultiReader(bytes.NewReader(first[:]), src), errorBodyLimit, r.Result.Attempt.StdoutTail)
	}
	// A command's stdout: its last retriedStdoutLimit bytes, where a test
	// run's summary is, and how much came before. A kept stdout can be read
	// from its end directly.
	if sized, ok := rc.(interface {
		io.ReaderAt
		Size() int64
	}); ok {
		size := sized.Size()
		if skipped := size - retriedStdoutLimit; skipped > 0 {
			fmt.Fprintf(w, "retry: (the first %d bytes of the attempt's stdout not shown)\n", skipped)
		}
		from := max(size-retriedStdoutLimit, 0)
		if l.copyBuf == nil {
			l.copyBuf = make([]byte, 32<<10)
		}
		if _, err := io.CopyBuffer(tw, io.NewSectionReader(sized, from, size-from), l.copyBuf); err != nil {
			return err
		}
		return tw.end()
	}
	// One buffer for the run: a MiB of garbage per retried attempt would
	// make memory grow with the number of attempts (issue 9).
	if l.retriedTail == nil {
		l.retriedTail = &tailBuffer{limit: retriedStdoutLimit}
		l.copyBuf = make([]byte, 32<<10)
	}
	tail := l.retriedTail
	tail.ring, tail.pos, tail.total = tail.ring[:0], 0, 0
	if _, err := io.CopyBuffer(tail, io.MultiReader(bytes.NewReader(first[:]), src), l.copyBuf); err != nil {
		return err
	}
	kept := tail.bytes()
	if skipped := tail.total - int64(len(kept)); skipped > 0 {
		fmt.Fprintf(w, "retry: (the first %d bytes of the attempt's stdout not shown)\n", skipped)
	}
	if _, err := tw.Write(kept); err != nil {
		return err
	}
	return tw.end()
}

// retriedStdoutLimit bounds what a retried attempt's stdout puts on stderr.
const retriedStdoutLimit = 1 << 20

// tailBuffer keeps the last limit bytes written, in a ring, and counts
// them all.
type tailBuffer struct {
	ring  []byte
	pos   int // next write position once the ring is full
	limit int
	total int64
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	n := len(b)
	t.total += int64(n)
	if len(b) > t.limit {
		b = b[len(b)-t.limit:]
	}
	if room := t.limit - len(t.ring); room > 0 {
		k := min(room, len(b))
		t.ring = append(t.ring, b[:k]...)
		b = b[k:]
	}
	for len(b) > 0 {
		k := copy(t.ring[t.pos:], b)
		b = b[k:]
		t.pos = (t.pos + k) % t.limit
	}
	return n, nil
}

// bytes returns the kept bytes in order.
func (t *tailBuffer) bytes() []byte {
	if len(t.ring) < t.limit || t.pos == 0 {
		return t.ring
	}
	return append(append([]byte(nil), t.ring[t.pos:]...), t.ring[:t.pos]...)
}

// writeBody writes a failed HTTP call's body to stderr, bounded, after a
// line naming the attempt.
func writeBody(o *Options, p *plan, last *runner.Record) error {
	rc, err := last.Result.OpenStdout()
	if err != nil {
		return err
	}
	defer rc.Close()
	var first [1]byte
	n, _ := io.ReadFull(rc, first[:])
	if n == 0 {
		return nil
	}
	writeFrame(o, p, last.Number, p.strategy.MaxAttempts)
	return copyBounded(&trailingNewline{w: o.IO.ErrOut}, io.MultiReader(bytes.NewReader(first[:]), rc), errorBodyLimit, nil)
}

// writeFrame writes, before an attempt's output on stderr, the line that
// names it: "retry: stdout of attempt 1/5:" ("body" for HTTP), or with
// --log-format json on stderr {"retry":"stdout","attempt":1}; maxAttempts
// is the run's limit (0: unlimited). -q drops it.
func writeFrame(o *Options, p *plan, n, maxAttempts int) {
	if o.Quiet {
		return
	}
	what := "stdout"
	if p.http {
		what = "body"
	}
	if o.LogFormat == "json" && p.logFile == nil {
		fmt.Fprintf(o.IO.ErrOut, "{\"retry\":%q,\"attempt\":%d}\n", what, n)
		return
	}
	label := fmt.Sprintf("attempt %d", n)
	if maxAttempts > 0 {
		label += fmt.Sprintf("/%d", maxAttempts)
	}
	fmt.Fprintf(o.IO.ErrOut, "retry: %s of %s:\n", what, label)
}

// copyBounded copies at most limit bytes of r to tw and ends the line; when
// r holds more, a line says how much was left out.
func copyBounded(tw *trailingNewline, r io.Reader, limit int64, _ []byte) error {
	n, err := io.Copy(tw, io.LimitReader(r, limit))
	if err != nil {
		return err
	}
	if err := tw.end(); err != nil {
		return err
	}
	if n == limit {
		rest, _ := io.Copy(io.Discard, r)
		if rest > 0 {
			_, err = fmt.Fprintf(tw.w, "retry: (%d more bytes of the body not shown)\n", rest)
		}
	}
	return err
}

// trailingNewline passes writes through and ends what it wrote with a
// newline when it did not end with one.
type trailingNewline struct {
	w     io.Writer
	wrote bool
	last  byte
}

func (t *trailingNewline) Write(b []byte) (int, error) {
	if len(b) > 0 {
		t.wrote, t.last = true, b[len(b)-1]
	}
	return t.w.Write(b)
}

func (t *trailingNewline) end() error {
	if t.wrote && t.last != '\n' {
		_, err := t.w.Write([]byte{'\n'})
		return err
	}
	return nil
}

// exchangeLines is an HTTP attempt as -v logs it, in the order of the
// exchange, as curl -v does: "> " the request line and headers, "< " the
// status line and response headers, "* " what retry noted (redirects
// followed, body size, transport error).
func exchangeLines(info map[string]string) []string {
	if len(info) == 0 {
		return nil
	}
	var out []string
	if m, u := info[request.InfoMethod], info[request.InfoURL]; m != "" || u != "" {
		out = append(out, "> "+m+" "+u)
	}
	for _, h := range lines(info[request.InfoRequestHeaders]) {
		out = append(out, "> "+h)
	}
	if n := info[request.InfoRedirects]; n != "" {
		out = append(out, fmt.Sprintf("* followed %s redirect(s) to %s", n, info[request.InfoFinalURL]))
	}
	if s := info[request.InfoStatus]; s != "" {
		out = append(out, "< "+s)
	}
	for _, h := range lines(info[request.InfoHeaders]) {
		out = append(out, "< "+h)
	}
	if b := info[request.InfoBodyBytes]; b != "" {
		out = append(out, "* body: "+b+" bytes")
	}
	if e := info[request.InfoError]; e != "" {
		out = append(out, "* error: "+e)
	}
	// Anything a source adds later still shows, after the exchange.
	for _, k := range sortedKeys(info) {
		if !knownInfo[k] {
			for _, v := range lines(info[k]) {
				out = append(out, "* "+k+": "+v)
			}
		}
	}
	return out
}

var knownInfo = map[string]bool{
	request.InfoMethod: true, request.InfoURL: true, request.InfoFinalURL: true,
	request.InfoRedirects: true, request.InfoStatus: true, request.InfoHeaders: true,
	request.InfoRequestHeaders: true, request.InfoBodyBytes: true, request.InfoError: true,
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// infoJSON is Result.Info as the report and the JSON log show it: numbers
// as JSON numbers, headers as objects of arrays of values (as curl's
// %{header_json}), the rest as strings.
func infoJSON(info map[string]string) map[string]any {
	m := make(map[string]any, len(info))
	for k, v := range info {
		switch k {
		case request.InfoHeaders, request.InfoRequestHeaders:
			h := map[string][]string{}
			for _, line := range lines(v) {
				name, value, _ := strings.Cut(line, ":")
				h[name] = append(h[name], strings.TrimSpace(value))
			}
			m[k] = h
		case request.InfoBodyBytes, request.InfoRedirects:
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				m[k] = n
				continue
			}
			m[k] = v
		default:
			m[k] = v
		}
	}
	return m
}

// addTails adds to an attempt of the report the last bytes of its stdout
// and stderr (reportTailLimit each), redacted, when there are any.
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

// tailText is the last reportTailLimit bytes of b as valid UTF-8 (a rune
// cut at the start is dropped), redacted.
func tailText(b []byte) string {
	if len(b) > reportTailLimit {
		b = b[len(b)-reportTailLimit:]
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
