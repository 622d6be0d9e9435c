package durable

import (
	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner"
)

// EntryOf is the history entry of a finished attempt: r as the strategy
// recorded it, and result, what it did in the words of the logs ("exit
// status 1", "HTTP 503"). An attempt a signal stopped is Interrupted.
func EntryOf(r *runner.Record, result string) Entry {
	a := r.Result.Attempt
	e := Entry{Attempt: r.Number, Start: r.Start, Duration: Duration(max(r.Duration, 0)), Result: result,
		ExitCode: -1, Directive: r.Decision.Directive.String(), Delay: Duration(max(r.Delay, 0))}
	if a != nil {
		if a.Status != 0 {
			e.Status = a.Status
		} else if a.ExitCode >= 0 && a.ExitCode <= 255 {
			e.ExitCode = a.ExitCode
		}
	}
	switch {
	case r.Decision.Directive == acceptor.NoDecision:
		e.Directive = Interrupted
	case r.Decision.Acceptor >= 0:
		e.Acceptor = r.Decision.Name
	default:
		e.Acceptor = "fallback"
	}
	return e
}
