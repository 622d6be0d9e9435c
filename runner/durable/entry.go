package durable

import (
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner"
)

// EntryOf is the history entry of a finished attempt: r as the strategy
// recorded it, and result, what it did in the words of the logs ("exit
// status 1", "HTTP 503"). An attempt a signal stopped is Interrupted.
func EntryOf(r *runner.Record, result string) Entry {
	a := r.Result.Attempt
	e := Entry{Attempt: r.Number, Start: r.Start, Duration: Duration(max(r.Duration, 0)), Result: result,
		ExitCode: noExitCode, Directive: r.Decision.Directive.String(), Delay: Duration(max(r.Delay, 0))}
	if a != nil {
		if a.Status != 0 {
			e.Status = a.Status
		} else if a.HasExitCode() && a.ExitCode <= 255 {
			e.ExitCode = a.ExitCode
		}
	}
	switch {
	case r.Decision.Directive == acceptor.NoDecision:
		e.Directive = Interrupted
	case r.Decision.Source == acceptor.FromAcceptor:
		e.Acceptor = r.Decision.Name
	default:
		e.Acceptor = acceptor.FromFallback.String() // the fallback or retry safety
	}
	return e
}

// noExitCode is Entry.ExitCode in the file for an attempt without an exit
// status; code outside this package asks Entry.HasExitCode.
const noExitCode = -1

// HasExitCode reports whether ExitCode is an exit status.
func (e *Entry) HasExitCode() bool { return e.ExitCode != noExitCode }

// NotStarted is the history entry of attempt n that did not start at start
// (the token bucket or a signal stopped it first): interrupted, without an
// exit status, its result "did not start".
func NotStarted(n int, start time.Time) Entry {
	return Entry{Attempt: n, Start: start, ExitCode: noExitCode, Directive: Interrupted, Result: "did not start"}
}
