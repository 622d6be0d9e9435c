// Package echo is how retry repeats bytes it did not write: a retried
// attempt's output replayed on stderr, a failed HTTP call's body, the
// output tails of the report, the text of the status line. Every such byte
// is redacted by the rules of runner/redact (secret-looking names in
// NAME=VALUE, NAME = VALUE, NAME: VALUE and JSON keys, URLs, headers,
// Bearer and Basic credentials, PEM private keys), and on GitHub Actions a
// repeated stream is wrapped in ::stop-commands::TOKEN … ::TOKEN:: with a
// token random per run, so that no workflow command (an annotation,
// ::add-mask::, ::stop-commands:: itself) can be forged through it. The
// command's own live output is not retry's to wrap, as on any runner.
//
// The policy is a type, not a convention: text that may repeat what an
// attempt said is an Untrusted (a JSON value holding it a JSON), whose
// only ways out are redacted; what retry writes as it is, unredacted, is a
// Raw, greppable, each use listed (TestEchoIsRedacted). The sinks write
// nothing else.
package echo

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/retry-dev/retry/runner/redact"
)

// Policy is a run's echo policy. The zero Policy redacts and does not
// wrap; a nil *Policy does the same.
type Policy struct {
	token string // the stop-commands token; "" outside GitHub mode
}

// New returns the policy of a run: wrapped for GitHub Actions when github
// is true, with a token of 128 random bits.
func New(github bool) *Policy {
	if !github {
		return &Policy{}
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return &Policy{token: "retry-" + hex.EncodeToString(b[:])}
}

// Token is the stop-commands token of the run, "" when its output is not
// wrapped.
func (p *Policy) Token() string {
	if p == nil {
		return ""
	}
	return p.token
}

// Untrusted is text retry writes that may repeat what an attempt said —
// its output or error, an HTTP body, a URL, a header, an error code — or
// that is built from such text: a log line, an annotation, a report's
// tail, the status line. Its ways out are redacted (redact.Text): String
// (which fmt's %s and %v call), Line and WorkflowData; Message for a
// message of retry's own that quotes values. Making text Untrusted is
// always safe; string(u) is the raw way back, which TestEchoIsRedacted
// refuses outside this package.
type Untrusted string

// Sprintf formats as fmt.Sprintf does: any of args may be untrusted.
func Sprintf(format string, args ...any) Untrusted {
	return Untrusted(fmt.Sprintf(format, args...))
}

// String is u redacted (redact.Text).
func (u Untrusted) String() string { return redact.Text(string(u)) }

// Line is u redacted, as one line when oneLine is set (GitHub, where a
// line of its own is read as a workflow command): its line breaks escaped
// as \r and \n.
func (u Untrusted) Line(oneLine bool) string {
	if !oneLine {
		return u.String()
	}
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(u.String())
}

// WorkflowData is u redacted and escaped as the message of a GitHub
// workflow command, as the runner unescapes it (% first): one line that
// can never start a command of its own.
func (u Untrusted) WorkflowData() string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(u.String())
}

// Message is u, a message of retry's own that quotes the values it was
// given (a usage error), with their secrets hidden (redact.Message).
func (u Untrusted) Message() string { return redact.Message(string(u)) }

// JSON is an encoded JSON value that may hold what attempts said (a JSON
// log line, the report). Its way out is Bytes, redacted.
type JSON []byte

// Marshal encodes v (encoding/json) as a JSON to be written redacted.
func Marshal(v any) (JSON, error) { return json.Marshal(v) }

// MarshalIndent is Marshal with json.MarshalIndent's layout.
func MarshalIndent(v any, prefix, indent string) (JSON, error) {
	return json.MarshalIndent(v, prefix, indent)
}

// Bytes is j redacted (redact.JSON): every string as String hides secrets
// in text, and the values of secret keys, whatever types built it; keys,
// structure and layout kept.
func (j JSON) Bytes() []byte { return redact.JSON(j) }

// Raw is text of retry's own that repeats nothing an attempt said (its
// markup, numbers and fixed words), written as it is: the one way past
// redaction in what the sinks write. Each use is listed in
// TestEchoIsRedacted.
type Raw string

// maxLine bounds what Writer holds back waiting for the end of a line,
// as much as a retried attempt's replayed stdout can hold (1 MiB): such a
// line is redacted whole, with the name before every value in it. Of a
// longer line (a stream without line breaks) the first maxLine bytes up to
// their last blank are written redacted and the rest of the line, which
// no rule can read with the names it needs, shows as the placeholder.
const maxLine = 1 << 20

// redactPiece is about how much a Writer gives redact.Text at once.
const redactPiece = 32 << 10

// Writer repeats a stream onto w: redacted line by line, and in GitHub
// mode preceded by ::stop-commands::TOKEN (before its first byte) and
// followed by ::TOKEN:: (at Close). Close also ends the last line, so what
// follows starts on a line of its own. A Writer that got no byte writes
// nothing at all.
func (p *Policy) Writer(w io.Writer) *Writer {
	return &Writer{w: w, token: p.Token()}
}

// Writer is a repeated stream; see Policy.Writer.
type Writer struct {
	w       io.Writer
	token   string
	held    []byte // the start of the current line, not yet written
	started bool
	pem     bool // inside a PEM private key block
	cut     bool // in the rest of a line longer than maxLine: hidden
	last    byte // the last byte written to w
	err     error
	stream  redact.Stream // the redaction, which reads YAML values across writes
	out     []byte        // what stream gives, reused
}

// Write takes p whole (its complete lines are written at once, the last
// partial line held); an error is the first error writing to w.
func (x *Writer) Write(p []byte) (int, error) {
	if x.err != nil {
		return 0, x.err
	}
	n := len(p)
	if x.cut {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return n, nil
		}
		x.cut = false
		p = p[i:] // the line break ends the hidden rest
	}
	x.held = append(x.held, p...)
	if i := bytes.LastIndexByte(x.held, '\n'); i >= 0 {
		x.flush(i + 1)
	}
	if len(x.held) >= maxLine {
		x.cutLine()
	}
	return n, x.err
}

// cutLine writes a line longer than maxLine, held without its end: up to
// its last blank, redacted, then the placeholder for the rest of the line
// (Write drops it). Without a blank the whole line is the placeholder.
func (x *Writer) cutLine() {
	if !redactEcho {
		x.flush(len(x.held))
		return
	}
	x.flush(bytes.LastIndexAny(x.held, " \t") + 1)
	x.held = x.held[:0]
	x.write(redact.Placeholder)
	x.cut = true
}

// flush writes the first n held bytes, redacted: as one block (the rules
// of redact.Text never reach across a line break), or line by line when a
// PEM private key starts or goes on in them, whose body lines are left out
// even when the block ends inside the key.
func (x *Writer) flush(n int) {
	if n == 0 || x.err != nil {
		return
	}
	block := string(x.held[:n])
	x.held = append(x.held[:0], x.held[n:]...)
	if !redactEcho {
		x.write(block)
		return
	}
	if !x.pem && !strings.Contains(block, "-----BEGIN") {
		// In pieces of whole lines of about 32 KiB: what redact.Text
		// reads and writes stays in the processor's cache.
		for len(block) > redactPiece {
			i := strings.LastIndexByte(block[:redactPiece], '\n')
			if i < 0 {
				break
			}
			x.text(block[:i+1])
			block = block[i+1:]
		}
		x.text(block)
		return
	}
	for block != "" {
		line := block
		if i := strings.IndexByte(block, '\n'); i >= 0 {
			line = block[:i+1]
		}
		block = block[len(line):]
		x.flushLine(line)
	}
}

// flushLine writes one line, minding PEM private keys.
func (x *Writer) flushLine(s string) {
	switch {
	case x.pem:
		if strings.Contains(s, "PRIVATE KEY-----") && strings.Contains(s, "-----END") {
			x.pem = false
			x.write(s)
		}
		// the key's body: not repeated
	case strings.Contains(s, "-----BEGIN") && strings.Contains(s, "PRIVATE KEY-----") && !strings.Contains(s, "-----END"):
		x.pem = true
		x.text(s)
		if !strings.HasSuffix(s, "\n") {
			x.write("\n")
		}
		x.write(redact.Placeholder + "\n")
	default:
		x.text(s)
	}
}

// text writes s redacted: through the Writer's stream, into its buffer.
func (x *Writer) text(s string) {
	out, changed := x.stream.AppendText(x.out[:0], s)
	if !changed {
		x.write(s)
		return
	}
	x.out = out
	x.writeBytes(out)
}

func (x *Writer) write(s string) {
	if x.start(len(s)) {
		_, x.err = io.WriteString(x.w, s)
		x.last = s[len(s)-1]
	}
}

func (x *Writer) writeBytes(b []byte) {
	if x.start(len(b)) {
		_, x.err = x.w.Write(b)
		x.last = b[len(b)-1]
	}
}

// start reports whether n bytes are to be written, writing the
// stop-commands line before the first.
func (x *Writer) start(n int) bool {
	if x.err != nil || n == 0 {
		return false
	}
	if !x.started {
		x.started = true
		if x.token != "" {
			_, x.err = io.WriteString(x.w, "::stop-commands::"+x.token+"\n")
		}
	}
	return x.err == nil
}

// Close writes what is held, ends the last line and, in GitHub mode,
// resumes workflow commands. It does not close w.
func (x *Writer) Close() error {
	x.flush(len(x.held))
	if !x.started || x.err != nil {
		return x.err
	}
	if x.last != '\n' {
		x.write("\n")
	}
	if x.token != "" {
		x.write("::" + x.token + "::\n")
	}
	return x.err
}

// Wrote reports whether the Writer wrote anything.
func (x *Writer) Wrote() bool { return x.started }
