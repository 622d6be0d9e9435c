package sinks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/human"
	"github.com/retry-dev/retry/cmd/internal/sources"
	"github.com/retry-dev/retry/runner"
)

// errorBodyLimit bounds the failed HTTP body written to stderr, as a
// terminal or a CI log wants it: the start of it, where the message is.
const errorBodyLimit = 64 << 10

// RetriedConfig is what the output of retried attempts knows of the run.
type RetriedConfig struct {
	// Show: run keeps only the last attempt's stdout for stdout (final
	// mode), and writes a retried attempt's stdout to stderr. Without it
	// Observe writes nothing.
	Show bool
	// Kind is what the attempts are: the output of a source whose output
	// is a body (sources.Source.Body: an HTTP call's) is bounded
	// (errorBodyLimit) and framed as "body".
	Kind  acceptor.AttemptKind
	Quiet bool // -q: no frame line
	// JSONFrame: the output is JSON log lines (--log-format json), one per
	// line of it, {"retry":"stdout","attempt":1,"text":"…\n",…}, with no
	// frame; and so is a "not shown" notice.
	JSONFrame bool
	// Echo is how the output is repeated: redacted, and on GitHub wrapped
	// so that no workflow command can be forged through it (nil: redacted).
	Echo *echo.Policy
}

// Retried writes, in final mode, the stdout of an attempt that is retried
// to stderr, framed by a line naming the attempt, so a CI log keeps every
// failure and stdout gets only the last attempt's; and at the end a failed
// HTTP call's body (WriteBody).
type Retried struct {
	cfg   RetriedConfig
	lines *Lines    // its lock keeps a frame and its output together; warnings
	w     io.Writer // retry's stderr
	// maxAttempts is the run's attempt limit, as the events carry it.
	maxAttempts int

	tail    *tailBuffer // reused by writeAttemptStdout
	copyBuf []byte
}

// NewRetried returns the writer of retried attempts' output on stderr w,
// taking the lock of lines.
func NewRetried(cfg RetriedConfig, lines *Lines, w io.Writer) *Retried {
	return &Retried{cfg: cfg, lines: lines, w: w}
}

// Observe writes the stdout of a retried attempt.
func (l *Retried) Observe(e runner.Event) {
	l.maxAttempts = e.MaxAttempts
	if e.Kind == runner.EventAttemptEnd && e.Record.Retried && l.cfg.Show {
		if err := l.writeAttemptStdout(e.Record); err != nil {
			l.lines.Warn("%s: stdout: %v", human.AttemptLabel(e.Record.Number, l.maxAttempts), err)
		}
	}
}

// writeAttemptStdout writes r's stdout framed; an HTTP body is bounded
// (errorBodyLimit), a command's stdout is its tail.
func (l *Retried) writeAttemptStdout(r *runner.Record) error {
	rc, err := r.Result.OpenStdout()
	if err != nil {
		return err
	}
	defer rc.Close()
	var src io.Reader = rc
	if sources.Of(l.cfg.Kind).Body {
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
	l.lines.Lock()
	defer l.lines.Unlock()
	l.writeFrame(r.Number, l.maxAttempts)
	ew, done := l.echo(r.Number) // bytes the attempt wrote, repeated
	if sources.Of(l.cfg.Kind).Body {
		return done(l.copyBounded(ew, r.Number, io.MultiReader(bytes.NewReader(first[:]), src), errorBodyLimit))
	}
	// A command's stdout: its last retriedStdoutLimit bytes, where a test
	// run's summary is, and how much came before. A kept stdout can be read
	// from its end directly.
	if sized, ok := rc.(interface {
		io.ReaderAt
		Size() int64
	}); ok {
		size := sized.Size()
		if l.copyBuf == nil {
			l.copyBuf = make([]byte, 32<<10)
		}
		from := windowStart(sized, size-retriedStdoutLimit, size, l.copyBuf)
		if from > 0 {
			l.notShown(r.Number, from, "retry: (the first %d bytes of the attempt's stdout not shown)\n")
		}
		if _, err := io.CopyBuffer(ew, io.NewSectionReader(sized, from, size-from), l.copyBuf); err != nil {
			return err
		}
		return done(ew.Close())
	}
	// One buffer for the run: a MiB of garbage per retried attempt would
	// make memory grow with the number of attempts (a long run of retries).
	if l.tail == nil {
		l.tail = &tailBuffer{limit: retriedStdoutLimit + 1} // and the byte before: does the window start a line?
		l.copyBuf = make([]byte, 32<<10)
	}
	tail := l.tail
	tail.ring, tail.pos, tail.total = tail.ring[:0], 0, 0
	if _, err := io.CopyBuffer(tail, io.MultiReader(bytes.NewReader(first[:]), src), l.copyBuf); err != nil {
		return err
	}
	kept := tail.bytes()
	if skipped := tail.total - int64(len(kept)); skipped >= 0 && len(kept) > retriedStdoutLimit {
		from := windowStart(bytes.NewReader(kept), 1, int64(len(kept)), l.copyBuf)
		kept = kept[from:]
		l.notShown(r.Number, skipped+from, "retry: (the first %d bytes of the attempt's stdout not shown)\n")
	}
	if _, err := ew.Write(kept); err != nil {
		return err
	}
	return done(ew.Close())
}

// echo returns the writer that repeats attempt's output, redacted: onto
// retry's stderr (or the --log-file) as it was, or with --log-format json
// as JSON lines, one per line of the output (jsonText); and done, which
// writes what a JSON writer still holds once ew is closed.
func (l *Retried) echo(attempt int) (ew *echo.Writer, done func(error) error) {
	if !l.cfg.JSONFrame {
		return l.cfg.Echo.Writer(l.w), func(err error) error { return err }
	}
	j := &jsonText{l: l, attempt: attempt, what: l.what()}
	return l.cfg.Echo.Writer(j), func(err error) error {
		if ferr := j.flush(); err == nil {
			err = ferr
		}
		return err
	}
}

// maxTextPiece bounds the text of one JSON output line: a longer line of
// output comes in pieces of this size, one line each.
const maxTextPiece = 64 << 10

// jsonText turns repeated output into JSON log lines: each line of it
// (with its line break) is the text of one {"retry":"stdout"} (or
// "body") line, so that every line a JSON log writes parses.
type jsonText struct {
	l       *Retried
	attempt int
	what    string
	held    []byte // the start of a line, not yet written
}

func (j *jsonText) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 || len(j.held)+i+1 > maxTextPiece {
			k := min(len(p), maxTextPiece-len(j.held))
			j.held = append(j.held, p[:k]...)
			p = p[k:]
			if len(j.held) < maxTextPiece {
				break
			}
		} else {
			j.held = append(j.held, p[:i+1]...)
			p = p[i+1:]
		}
		if err := j.flush(); err != nil {
			return n - len(p), err
		}
	}
	return n, nil
}

// flush writes what is held as one line.
func (j *jsonText) flush() error {
	if len(j.held) == 0 {
		return nil
	}
	text := string(j.held)
	j.held = j.held[:0]
	return j.l.jsonLine(&OutputLine{Retry: j.what, Attempt: j.attempt, Text: text, Version: SchemaVersion})
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

// WriteBody writes a failed HTTP call's body to stderr, bounded, after a
// line naming the attempt.
func (l *Retried) WriteBody(last *runner.Record, maxAttempts int) error {
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
	l.writeFrame(last.Number, maxAttempts)
	ew, done := l.echo(last.Number)
	return done(l.copyBounded(ew, last.Number, io.MultiReader(bytes.NewReader(first[:]), rc), errorBodyLimit))
}

// what is what an attempt's output is: "stdout", or an HTTP call's "body".
func (l *Retried) what() string {
	if sources.Of(l.cfg.Kind).Body {
		return "body"
	}
	return "stdout"
}

// writeFrame writes, before an attempt's output on stderr, the line that
// names it: "retry: stdout of attempt 1/5:" ("body" for HTTP); maxAttempts
// is the run's limit (0: unlimited). -q drops it, and a JSON log has none:
// each of its output lines names the attempt.
func (l *Retried) writeFrame(n, maxAttempts int) {
	if l.cfg.Quiet || l.cfg.JSONFrame {
		return
	}
	what := l.what()
	label := fmt.Sprintf("attempt %d", n)
	if maxAttempts > 0 {
		label += fmt.Sprintf("/%d", maxAttempts)
	}
	fmt.Fprint(l.w, echo.Sprintf("retry: %s of %s:\n", what, label))
}

// notShown says that the first (or last) n bytes of attempt's output were
// left out: text (format, with n) or a JSON "not_shown" line.
func (l *Retried) notShown(attempt int, n int64, format string) {
	if l.cfg.JSONFrame {
		_ = l.jsonLine(&OutputLine{Retry: "not_shown", Attempt: attempt, Bytes: n, Version: SchemaVersion})
		return
	}
	fmt.Fprint(l.w, echo.Sprintf(format, n))
}

// jsonLine writes one JSON log line of the output on w. A text that is
// not UTF-8 is written with U+FFFD for the bytes that are not. The line is
// written as it is (echo.Raw): its text is what an echo.Writer wrote,
// redacted already; the rest is numbers and fixed words.
func (l *Retried) jsonLine(line *OutputLine) error {
	b, _ := json.Marshal(line) // ints, a fixed word and a string: always encodes
	_, err := l.w.Write(append([]byte(echo.Raw(b)), '\n'))
	return err
}

// copyBounded repeats at most limit bytes of r through ew and closes it
// (which ends the line); when r holds more, a line of retry's says how
// much was left out.
func (l *Retried) copyBounded(ew *echo.Writer, attempt int, r io.Reader, limit int64) error {
	// The run's one copy buffer: io.Copy would allocate 32 KiB for every
	// retried HTTP attempt, and a run of fast retries then spends a fifth
	// of its CPU in the collector.
	if l.copyBuf == nil {
		l.copyBuf = make([]byte, 32<<10)
	}
	n, err := io.CopyBuffer(ew, io.LimitReader(r, limit), l.copyBuf)
	if err != nil {
		return err
	}
	if err := ew.Close(); err != nil {
		return err
	}
	if n == limit {
		if rest, _ := io.Copy(io.Discard, r); rest > 0 {
			l.notShown(attempt, rest, "retry: (%d more bytes of the body not shown)\n")
		}
	}
	return nil
}
