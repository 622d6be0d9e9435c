package acceptor

import (
	"bytes"
	"io"
	"net/http"
	"time"
)

// AttemptKind says what an attempt was: which source made it.
type AttemptKind int

// The kinds of attempt. The zero value is CommandAttempt, retry's first
// job.
const (
	// CommandAttempt: a command ran (or could not start); it has an exit
	// status (see HasExitCode).
	CommandAttempt AttemptKind = iota
	// HTTPAttempt: an HTTP request (--url); Status is the response's, 0
	// when there was none.
	HTTPAttempt
	// TCPAttempt: a TCP connect (--tcp); it succeeds when the connection is
	// accepted.
	TCPAttempt
)

func (k AttemptKind) String() string {
	switch k {
	case CommandAttempt:
		return "command"
	case HTTPAttempt:
		return "HTTP"
	case TCPAttempt:
		return "TCP"
	}
	return "unknown"
}

// Attempt is what one attempt produced, as acceptors see it. Sources (a
// command, an HTTP call, a TCP connect) fill it in; acceptors only read it.
type Attempt struct {
	// Number is the attempt's 1-based number.
	Number int

	// Kind says which source made the attempt; each source sets it.
	Kind AttemptKind

	// Failed reports whether the attempt is an error: a command that exited
	// non-zero, could not start or was stopped; an HTTP call that got no
	// response or a status outside 2xx. Path acceptors see only attempts that
	// did not fail; error acceptors only attempts that did.
	Failed bool

	// ExitCode is a command's exit status as a shell reports it: 0–255, 128+N
	// when it died of signal N, 126 or 127 when it could not be executed or
	// found. It means something only when HasExitCode reports so (0
	// otherwise).
	ExitCode int

	// Skipped reports that the source did not begin the attempt: its context
	// was already done (the deadline, a signal). A skipped command has no
	// exit status.
	Skipped bool

	// NotStarted reports that the command could not be started (ExitCode is
	// 126 or 127).
	NotStarted bool

	// TimedOut reports that the attempt was stopped by --attempt-timeout.
	TimedOut bool

	// Status is the HTTP status of the response; 0 when there was none
	// (commands, transport errors).
	Status int

	// Header holds the HTTP response headers; nil for commands.
	Header http.Header

	// ErrorCode is the error code of a failed attempt, parsed from a known
	// CLI's stderr, an HTTP error body or header, or by --error-pattern; ""
	// when there is none.
	ErrorCode string

	// ErrorMessage is the message that came with ErrorCode, if any.
	ErrorMessage string

	// Err is the error that prevented the attempt from producing a result: a
	// start failure or an HTTP transport error. nil otherwise.
	Err error

	// Transient reports, for an attempt with Err set, that the error is worth
	// a retry on the client side (connection refused or reset, a timeout, a
	// temporary DNS failure). A non-transient Err is a failure.
	Transient bool

	// RetryUnsafe reports that the attempt must not be retried: an HTTP
	// request with a method that is not idempotent may have reached the
	// server, and --idempotent was not given.
	RetryUnsafe bool

	// RetryAfter is the server's retry-after hint (Retry-After,
	// x-amz-retry-after); 0 when there is none.
	RetryAfter time.Duration

	// StdoutTail and StderrTail are the last bytes of each stream, a bounded
	// window (by default 1 MiB) for output acceptors.
	StdoutTail []byte
	StderrTail []byte

	// Stdout opens the whole of stdout (the HTTP response body): path
	// acceptors parse it as JSON. nil means stdout was not kept and is empty.
	Stdout func() (io.ReadCloser, error)
}

// HasExitCode reports whether ExitCode is an exit status: the attempt ran a
// command, or tried to (126, 127), rather than being skipped, an HTTP call or
// a TCP connect.
func (a *Attempt) HasExitCode() bool { return a.Kind == CommandAttempt && !a.Skipped }

// OpenStdout opens the attempt's whole stdout; an attempt without one reads
// as empty.
func (a *Attempt) OpenStdout() (io.ReadCloser, error) {
	if a.Stdout == nil {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	return a.Stdout()
}
