// Package human says things the way retry's logs, help and subcommands
// show them to people: durations, counts, attempt numbers, what an attempt
// did and who decided it. The text log, the CI markup, the durable
// sequence and the state subcommand all say them alike.
package human

import (
	"fmt"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/sources"
	"github.com/retry-dev/retry/runner"
)

// StateTime is how times of a durable sequence are written: UTC, to the
// millisecond.
const StateTime = "2006-01-02T15:04:05.000Z07:00"

// Duration prints a duration the way logs show it: 1.5s, 250ms, 2m0s.
func Duration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Millisecond:
		return d.String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// Plural is n and word, with an s unless n is 1: "1 attempt", "3 attempts".
func Plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// AttemptOf names attempt n of max: "3/5", or "3" when unlimited (max 0).
func AttemptOf(n, max int) string {
	if max > 0 {
		return fmt.Sprintf("%d/%d", n, max)
	}
	return fmt.Sprint(n)
}

// AttemptLabel is "attempt 3/5", or "attempt 3" when unlimited (max 0).
func AttemptLabel(n, max int) string { return "attempt " + AttemptOf(n, max) }

// AttemptCount is how many attempts out counts: the number of its last
// attempt, which with --state is the sequence's count across invocations.
func AttemptCount(out *runner.Outcome) int {
	if last := out.Last(); last != nil {
		return last.Number
	}
	return 0
}

// Result says what an attempt did: "exit status 1", "HTTP 503", "timed
// out after 2s", "command not found".
func Result(r *runner.Record) string {
	a := r.Result.Attempt
	switch {
	case a.TimedOut:
		return "timed out after " + Duration(r.Duration)
	case a.Err != nil:
		return a.Err.Error()
	}
	if said := sources.Of(a.Kind).Said; said != nil {
		if s := said(a); s != "" {
			return s // "connection accepted", "HTTP 503"
		}
	}
	s := fmt.Sprintf("exit status %d", a.ExitCode)
	if a.ErrorCode != "" {
		s += ", error " + a.ErrorCode
	}
	return s
}

// DecidedBy says who decided: the matching acceptor, the retry-safety
// rule's reason, or that no acceptor matched (the fallback decided). An
// attempt nothing decided has no name: "".
func DecidedBy(d acceptor.Decision) string {
	switch d.Source {
	case acceptor.FromAcceptor, acceptor.NoSource:
		return d.Name
	case acceptor.FromRetrySafety:
		return d.Value
	}
	return "no acceptor matched"
}

// AcceptorLabel is how people read the acceptor a record names (a state
// file's, a report's): the fallback's decision is "no acceptor matched",
// as in the log and the CI summary; an acceptor's name is itself.
func AcceptorLabel(name string) string {
	if name == acceptor.FromFallback.String() {
		return "no acceptor matched"
	}
	return name
}

// Waiting reports whether d is an acceptor's retry state in a wait (a
// waiter's "table not there yet", --retry-status 404): the resource is not
// ready, which is what waiting is, not a server's error.
func Waiting(wait bool, d acceptor.Decision) bool {
	return wait && d.Source == acceptor.FromAcceptor && d.Directive == acceptor.RetryServer
}

// DirectiveText is how the log names d's directive: "not yet" for an
// acceptor's retry state in a wait (Waiting), else the directive
// ("retry (server-side)", "failure").
func DirectiveText(wait bool, d acceptor.Decision) string {
	if Waiting(wait, d) {
		return "not yet"
	}
	return d.Directive.String()
}

// NotYet reports whether r is a wait's poll that no acceptor decided: a
// successful attempt the fallback polls again. The log calls it "not yet".
func NotYet(wait bool, r *runner.Record) bool {
	return wait && r.Decision.Source == acceptor.FromFallback && r.Decision.Directive == acceptor.RetryServer && !r.Result.Failed
}

// Pending says what a not-yet poll saw: `Table.TableStatus = "CREATING":
// not yet`, or "not yet" when no path acceptor looked at it.
func Pending(r *runner.Record) string {
	if p := r.Decision.Pending(); p != "" {
		return p + ": not yet"
	}
	return "not yet"
}
