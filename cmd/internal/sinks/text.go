package sinks

import (
	"errors"
	"fmt"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/cmd/internal/human"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/command"
)

// TextConfig is what the text log knows of the run beyond its events.
type TextConfig struct {
	// Wait: the run is a wait. A poll the fallback repeats is "not yet", a
	// failure is a failure state, and a wait that gives up names the last
	// state an acceptor accepted.
	Wait    bool
	Quiet   bool // -q: only what went wrong with an attempt's processes
	Verbose bool // -v: every acceptor evaluated, and an HTTP exchange
	// MaxTime is the run's time budget, which the line of a run that ran
	// out of it names (0: none).
	MaxTime       time.Duration
	Scope         string // --scope, which the line of an empty bucket names
	WhenEmptyWait bool   // --when-empty wait
	State         string // the --state file of a durable sequence
	// TTY: stderr is a terminal, where the log shows a status line while
	// it sleeps between attempts (Sleep).
	TTY bool
}

// Text is the text log: one line per failed attempt, one at the end, -v
// detail, and on a terminal a status line while it sleeps between
// attempts.
type Text struct {
	cfg   TextConfig
	lines *Lines
	last  *runner.Record
	start time.Time        // when the first attempt started, for the status line
	now   func() time.Time // the status line's clock

	// The run's limits, as the events carry them: the attempt limit (0:
	// unlimited) and the successes in a row that end the run (≤ 1: the
	// first).
	maxAttempts, consecutive int

	ttyHinted bool // the terminal-stop hint was printed
}

// NewText returns the text log of a run, written on lines.
func NewText(cfg TextConfig, lines *Lines) *Text {
	return &Text{cfg: cfg, lines: lines, now: time.Now}
}

// Observe writes the lines of e.
func (l *Text) Observe(e runner.Event) {
	l.maxAttempts, l.consecutive = e.MaxAttempts, e.Consecutive
	if l.cfg.Quiet {
		if e.Kind == runner.EventAttemptEnd {
			l.attemptProblems(e.Record)
		}
		return
	}
	switch e.Kind {
	case runner.EventAttemptStart:
		if l.start.IsZero() {
			l.start = e.Time
		}
	case runner.EventAttemptEnd:
		l.attemptEnd(e.Record)
	case runner.EventEnd:
		l.end(e.Outcome)
	case runner.EventBucketWait:
		l.lines.Printf("%v; waiting %s for the refill (--when-empty wait)", e.Empty, human.Duration(e.Wait))
	case runner.EventHook:
		l.hook(e)
	case runner.EventDocument:
		l.attemptEnd(e.Record) // a document of a stream that does not end it
	}
}

// Event writes a line of a durable invocation (--state) that no strategy
// event carries; -q silences it.
func (l *Text) Event(e StateEvent) {
	if l.cfg.Quiet {
		return
	}
	l.lines.Printf("%s", e.Message)
}

// hook logs what --on-retry did: a line when it failed (the run goes on),
// with -v one when it succeeded.
func (l *Text) hook(e runner.Event) {
	h := e.Hook
	switch {
	case h.Stopped != nil && !errors.Is(h.Stopped, runner.ErrAttemptTimeout):
		l.lines.Printf("--on-retry before attempt %d: %v after %s", e.Attempt, h.Err, human.Duration(h.Duration))
	case h.Err != nil:
		l.lines.Printf("--on-retry before attempt %d: %v after %s; the run goes on", e.Attempt, h.Err, human.Duration(h.Duration))
	case l.cfg.Verbose:
		l.lines.Printf("--on-retry before attempt %d: exit status 0 in %s", e.Attempt, human.Duration(h.Duration))
	}
}

// inARow says how many successes in a row the run has, with --consecutive:
// " (2/3 in a row)"; "" without.
func (l *Text) inARow(r *runner.Record) string {
	if r == nil || l.consecutive <= 1 {
		return ""
	}
	return fmt.Sprintf(" (%d/%d in a row)", r.Streak, l.consecutive)
}

func (l *Text) attemptLabel(n int) string {
	if m := l.maxAttempts; m > 0 {
		return fmt.Sprintf("attempt %d/%d", n, m)
	}
	return fmt.Sprintf("attempt %d", n)
}

// recordLabel names what r is about: "attempt 2/5", or for a document of
// a streamed attempt (wait --watch) "attempt 2, document 3".
func (l *Text) recordLabel(r *runner.Record) string {
	if r.Document > 0 {
		return fmt.Sprintf("%s, document %d", l.attemptLabel(r.Number), r.Document)
	}
	return l.attemptLabel(r.Number)
}

// resultOf says what r's attempt did, after its label: ": exit status 1";
// "" for a document of a stream, whose command has not ended.
func resultOf(r *runner.Record) string {
	if r.Document > 0 {
		return ""
	}
	return ": " + human.Result(r)
}

func (l *Text) attemptEnd(r *runner.Record) {
	l.last = r
	if l.cfg.Verbose {
		for _, s := range r.Decision.Trace {
			verdict := "no match"
			if s.Matched {
				verdict = "matched, " + s.State.String()
			}
			l.lines.Printf("%s: %s: %s (saw %s)", l.recordLabel(r), s.Name, verdict, valueOrNothing(s.Value))
		}

		// One log line per header: every line keeps the "retry:" prefix.
		for _, line := range exchangeLines(r.Result.Exchange) {
			l.lines.Printf("%s: %s", l.recordLabel(r), line)
		}
	}
	for _, w := range r.Decision.Warnings {
		l.lines.Printf("%s: warning: %s", l.recordLabel(r), w)
	}
	l.attemptProblems(r)
	if d := r.Decision; l.cfg.Verbose && d.Source == acceptor.FromFallback {
		// Which fallback decided, and on what.
		which := "run"
		if l.cfg.Wait {
			which = "wait"
		}
		if human.NotYet(l.cfg.Wait, r) {
			l.lines.Printf("%s: no acceptor matched: wait's fallback polls a successful attempt again (not yet)", l.recordLabel(r))
		} else {
			l.lines.Printf("%s: no acceptor matched: %s's fallback decided %s on %s", l.recordLabel(r), which, d.Directive, valueOrNothing(d.Value))
		}
	}
	d := r.Decision.Directive
	if r.Result.Stopped != nil && d == acceptor.NoDecision {
		return // stopped by the deadline or a signal: the end line says so
	}
	if d == acceptor.Succeed && (l.consecutive <= 1 || r.Streak >= l.consecutive) {
		return // the success that ends the run: the end line says so
	}
	line := fmt.Sprintf("%s%s: %s [%s]%s", l.recordLabel(r), resultOf(r), human.DirectiveText(l.cfg.Wait, r.Decision), human.DecidedBy(r.Decision), l.inARow(r))
	if human.NotYet(l.cfg.Wait, r) {
		line = fmt.Sprintf("%s%s: %s%s", l.recordLabel(r), resultOf(r), human.Pending(r), l.inARow(r))
	}
	if r.Retried {
		line += "; next attempt in " + human.Duration(r.Delay)
		if r.RetryAfter > 0 {
			line += " (" + retryAfterText("server asked for ", r) + ")"
		}
	}
	l.lines.Printf("%s", line)
}

func (l *Text) end(out *runner.Outcome) {
	n := len(out.Attempts)
	el := human.Duration(out.Elapsed)
	last := out.Last()
	if last != nil {
		n = last.Number // a durable sequence counts its attempts across invocations
	}
	switch out.End {
	case runner.EndScheduled:
		if last != nil {
			due := out.Next
			l.lines.Printf("attempt %s is due at %s, in %s: a later invocation with --state %s makes it", human.AttemptOf(n+1, l.maxAttempts), due.UTC().Format(human.StateTime), human.Duration(last.Delay), l.cfg.State)
		}
	case runner.EndSuccess:
		doc := documentOf(last)
		if n == 1 {
			l.lines.Printf("succeeded on the first attempt%s in %s", doc, el)
		} else {
			l.lines.Printf("succeeded on attempt %d%s after %s%s", n, doc, el, l.inARow(last))
		}
	case runner.EndFailure:
		if last == nil || last.Result.Stopped != nil && last.Decision.Directive == acceptor.NoDecision {
			l.lines.Printf("failed after %s: %v", el, out.Err)
			return
		}
		detail := human.DecidedBy(last.Decision)
		switch {
		case last.Decision.Detail != "":
			detail += ": " + last.Decision.Detail
		case last.Decision.Source == acceptor.FromAcceptor && last.Decision.Value != "":
			detail += fmt.Sprintf(" (saw %s)", last.Decision.Value)
		case last.Decision.Source == acceptor.FromFallback, last.Decision.Source == acceptor.FromRetrySafety:
			detail = last.Decision.Value
		}
		what := "failed"
		if l.cfg.Wait {
			what = "waiter reached a failure state"
		}
		l.lines.Printf("%s on attempt %d%s after %s: %s", what, n, documentOf(last), el, detail)
	case runner.EndAttempts:
		msg := "max attempts exceeded"
		l.lines.Printf("gave up after %s in %s: %s%s%s", human.Plural(n, "attempt"), el, msg, l.inARow(last), l.lastState(out))
	case runner.EndDeadline:
		msg := "time budget exceeded"
		if l.cfg.MaxTime > 0 {
			msg += " (--max-time " + human.Duration(l.cfg.MaxTime) + ")"
		}
		if last != nil && last.RetryAfter > 0 && last.Delay == 0 {
			msg += "; " + retryAfterText("the server asked to retry in ", last)
		}
		var late *bucket.LateError
		if errors.As(out.Err, &late) {
			limiter := "the adaptive rate limiter"
			if l.cfg.Scope != "" {
				limiter = "the adaptive rate limiter of --scope " + l.cfg.Scope
			}
			msg += fmt.Sprintf("; %s grants the next send in %s, after it", limiter, human.Duration(late.Wait))
		}
		l.lines.Printf("gave up after %s in %s: %s%s%s", human.Plural(n, "attempt"), el, msg, l.inARow(last), l.lastState(out))
	case runner.EndBucket:
		hint := "--when-empty wait waits for the refill"
		if l.cfg.WhenEmptyWait {
			hint = "the refill would come after --max-time " + human.Duration(l.cfg.MaxTime)
		}
		l.lines.Printf("gave up after %s in %s: --scope %s: %v (%s)%s", human.Plural(n, "attempt"), el, l.cfg.Scope, out.Err, hint, l.lastState(out))
	case runner.EndInterrupted:
		during := ""
		switch {
		case last != nil && last.Retried && last.Hook != nil:
			during = fmt.Sprintf(" during the --on-retry hook before attempt %d", n+1)
		case last != nil && last.Retried:
			// The last attempt ended and the next one was planned: the
			// signal came during the delay.
			during = fmt.Sprintf(" while waiting before attempt %d", n+1)
		case last != nil:
			during = fmt.Sprintf(" during attempt %d", n)
		}
		l.lines.Printf("%v%s after %s; no further attempt", out.Err, during, el)
	}
}

// attemptProblems prints what went wrong with an attempt's processes, even
// with -q: a leader stopped waiting for the terminal (once per run), and
// processes the sweep could not end.
func (l *Text) attemptProblems(r *runner.Record) {
	if errors.Is(r.Result.Err, command.ErrTerminalStop) && !l.ttyHinted {
		l.ttyHinted = true
		l.lines.Warn("attempt %d is stopped waiting for the terminal; use --foreground for interactive commands", r.Number)
	}
	for _, w := range r.Result.Warnings {
		l.lines.Warn("%s: warning: %s", l.attemptLabel(r.Number), w)
	}
}

// lastState names, for a wait that gave up, the last state an acceptor
// accepted: "; last state: retry (server-side) [--retry …]". As botocore's
// "previously accepted state", it is the latest attempt an acceptor decided,
// looking past attempts the fallback decided and an attempt the deadline
// stopped (which has no decision); it is empty when no acceptor ever
// matched.
func (l *Text) lastState(out *runner.Outcome) string {
	if !l.cfg.Wait {
		return ""
	}
	for i := len(out.Attempts) - 1; i >= 0; i-- {
		d := out.Attempts[i].Decision
		if d.Directive != acceptor.NoDecision && d.Source == acceptor.FromAcceptor {
			return fmt.Sprintf("; last state: %s [%s]", human.DirectiveText(true, d), d.Name)
		}
	}
	return ""
}

// valueOrNothing is what an acceptor saw, as the -v trace shows it:
// "nothing" for no value.
func valueOrNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// retryAfterText describes the retry-after hint of r after lead ("server asked
// for "): "server asked for 50ms"; when --max-retry-after capped it, "server
// asked for 2m0s, capped at 20ms by --max-retry-after".
func retryAfterText(lead string, r *runner.Record) string {
	asked := r.Result.Attempt.RetryAfter
	s := lead + human.Duration(asked)
	if asked > r.RetryAfter {
		s += fmt.Sprintf(", capped at %s by --max-retry-after", human.Duration(r.RetryAfter))
	}
	return s
}

// documentOf says which document of a streamed attempt (wait --watch)
// decided r: " (document 3 of its stream)"; "" for an attempt whose end
// was evaluated.
func documentOf(r *runner.Record) string {
	if r == nil || r.Document == 0 {
		return ""
	}
	return fmt.Sprintf(" (document %d of its stream)", r.Document)
}
