package output

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Defaults of the sources' zero-valued settings, and the limits that keep an
// attempt from losing output silently or growing without bound.
const (
	// DefaultWindow is the tail window kept of stdout and stderr (1 MiB).
	DefaultWindow = 1 << 20
	// DefaultSpillThreshold is how much of a stream is kept in memory before
	// it spills to a temporary file: 1 MiB, what a pipe grown by the command
	// source holds. Past it, a kept stdout goes from its pipe to the file
	// with splice(2) and never passes through retry's memory, while the
	// bytes held before the spill are copied three times (read, kept,
	// written to the file): 1 MiB instead of 8 MiB took a sixth off the
	// CPU of 64 MiB in final mode (bench/final.sh, in docs/benchmarks.md), while a
	// small document (a JSON reply) still costs no file.
	DefaultSpillThreshold = 1 << 20
	// DefaultMaxKeep bounds the stdout an attempt keeps (final mode, or
	// JSON acceptors) when the source sets no bound of its own
	// (command.Command.MaxOutput, request.Config.MaxOutput is 0): 10 GiB.
	// Live output has no default bound.
	DefaultMaxKeep = 10 << 30
	// DefaultMemoryFallback is how much of a stream a Capture keeps in
	// memory, in all, when its temporary file cannot be created or written
	// (an unwritable or full TMPDIR): 64 MiB. Beyond it the stream cannot be
	// kept whole and the Capture fails.
	DefaultMemoryFallback = 64 << 20
	// ReportTail is how many of the last bytes of each stream an attempt
	// keeps for a report of the run (retry's --report): 2 KiB.
	ReportTail = 2 << 10
)

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

// LimitError is the Err of an attempt whose output (stdout and stderr
// together) went past its bound (--max-output), or whose kept stdout went
// past DefaultMaxKeep. The attempt is stopped and fails; it is not retried.
type LimitError struct {
	Limit int64
	// Kept is true when the default bound of kept stdout was hit, not an
	// explicit --max-output.
	Kept bool
}

func (e *LimitError) Error() string {
	if e.Kept {
		return fmt.Sprintf("stdout exceeded %s, the most an attempt's stdout may keep (--max-output SIZE sets another bound; a command whose output never ends needs --stdout live)", FormatSize(e.Limit))
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
