package runner

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

// Limits that keep an attempt from losing output silently or growing
// without bound.
const (
	// DefaultMaxKeep bounds the stdout an attempt keeps (final mode, or
	// JSON acceptors) when Command.MaxOutput is 0: 10 GiB. Live output has
	// no default bound.
	DefaultMaxKeep = 10 << 30
	// DefaultMemoryFallback is how much of a stream a Capture keeps in
	// memory, in all, when its temporary file cannot be created or written
	// (an unwritable or full TMPDIR): 64 MiB. Beyond it the stream cannot be
	// kept whole and the Capture fails.
	DefaultMemoryFallback = 64 << 20
)

// ErrTerminalStop is the Err of an attempt whose leader was stopped by
// SIGTTIN or SIGTTOU: it tried to use the terminal from a background process
// group. The attempt is killed and fails; it is not retried.
var ErrTerminalStop = errors.New("stopped waiting for the terminal")

// StreamError stops an attempt, and the run, when an output stream cannot be
// written or kept whole: a closed pipe or a full device on retry's stdout or
// stderr, or a spill file that cannot be written. Output is never lost
// silently. The attempt is stopped as on a signal (SIGTERM, the grace,
// SIGKILL, the sweep).
type StreamError struct {
	// Stream is "stdout", "stderr" or "stdin".
	Stream string
	// Keeping is true when keeping the stream failed (a spill file, the
	// stdin recording), false when writing it to retry's own stream did.
	Keeping bool
	Err     error
}

func (e *StreamError) Error() string {
	err := e.Err
	var pe *os.PathError
	if errors.As(err, &pe) && !e.Keeping {
		err = pe.Err // "write /dev/stdout: broken pipe" says the stream twice
	}
	if e.Keeping {
		return fmt.Sprintf("%s cannot be kept whole: %v", e.Stream, err)
	}
	return fmt.Sprintf("writing %s: %v", e.Stream, err)
}

func (e *StreamError) Unwrap() error { return e.Err }

// BrokenPipe reports whether the stream's reader went away (EPIPE): the
// shell convention is then to exit 128+SIGPIPE.
func (e *StreamError) BrokenPipe() bool { return errors.Is(e.Err, syscall.EPIPE) }

// OutputLimitError is the Err of an attempt whose output (stdout and stderr
// together) went past Command.MaxOutput, or whose kept stdout went past
// DefaultMaxKeep. The attempt is stopped and fails; it is not retried.
type OutputLimitError struct {
	Limit int64
	// Kept is true when the default bound of kept stdout was hit, not an
	// explicit --max-output.
	Kept bool
}

func (e *OutputLimitError) Error() string {
	if e.Kept {
		return fmt.Sprintf("stdout exceeded %s, the most an attempt's stdout may keep (--max-output SIZE sets another bound)", FormatSize(e.Limit))
	}
	return fmt.Sprintf("output exceeded --max-output %s", FormatSize(e.Limit))
}

// FormatSize writes n bytes the way --max-output takes them: "10GiB",
// "1MiB", "1500B".
func FormatSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && n%1024 == 0 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%d%s", n, units[i])
}

// attemptGuard collects what went wrong with an attempt's streams, the first
// problem first, and stops the attempt when it happens.
type attemptGuard struct {
	stop func(error) // stops the attempt's processes

	mu     sync.Mutex
	err    error // a *StreamError or *OutputLimitError
	limit  int64 // 0: none
	kept   int64 // bound of kept stdout
	output atomic.Int64
}

// fail records err, when it is the first problem, and stops the attempt.
func (g *attemptGuard) fail(err error) {
	g.mu.Lock()
	first := g.err == nil
	if first {
		g.err = err
	}
	g.mu.Unlock()
	if first && g.stop != nil {
		g.stop(err)
	}
}

func (g *attemptGuard) problem() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// count adds n bytes of output and reports false, after failing the
// attempt, when they pass the limit.
func (g *attemptGuard) count(n int) bool {
	total := g.output.Add(int64(n))
	if g.limit > 0 && total > g.limit {
		g.fail(&OutputLimitError{Limit: g.limit})
		return false
	}
	return true
}
