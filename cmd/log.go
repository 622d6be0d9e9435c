package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/command"
	"github.com/retry-dev/retry/runner/redact"
)

// logger writes retry's own lines on stderr: one per failed attempt, one at
// the end, -v detail, or one JSON object per event. On a terminal it shows a
// status line while it sleeps between attempts.
type logger struct {
	o     *Options
	p     *plan
	w     io.Writer
	mu    sync.Mutex
	tty   bool
	last  *runner.Record
	start time.Time        // when the first attempt started, for the status line
	state string           // the --state file of a durable sequence
	ci    *ciLog           // CI markup around the lines (ci.go); nil outside CI
	now   func() time.Time // the status line's clock

	// The run's limits, as the events carry them: the attempt limit (0:
	// unlimited) and the successes in a row that end the run (≤ 1: the
	// first).
	maxAttempts, consecutive int

	ttyHinted bool // the terminal-stop hint was printed

	retriedTail *tailBuffer // reused by writeAttemptStdout
	copyBuf     []byte
}

func newLogger(o *Options, p *plan) *logger {
	var w io.Writer = o.IO.ErrOut
	if p.errOut != nil {
		w = p.errOut.log() // a line of retry's never continues a child's
	}
	l := &logger{o: o, p: p, w: w, now: time.Now, tty: !o.Quiet && o.LogFormat == "text" && o.IO.StderrIsTerminal}
	if p.logFile != nil {
		l.w, l.tty = p.logFile, false
	}
	l.ci = newCILog(o, l)
	return l
}

// printf writes one line of retry's, its secrets redacted.
func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "retry: %s\n", l.ci.line(redact.Text(fmt.Sprintf(format, args...))))
}

// warn prints a warning even with -q: it reports something that went wrong.
func (l *logger) warn(format string, args ...any) { l.printf(format, args...) }

func (l *logger) observe(e runner.Event) {
	l.maxAttempts, l.consecutive = e.MaxAttempts, e.Consecutive
	l.ci.before(e)
	defer l.ci.after(e)
	if e.Kind == runner.EventAttemptEnd && e.Record.Retried && l.p.final && !l.o.Wait {
		// Output, not a log line: written with -q and whatever the format.
		l.writeRetriedOutput(e.Record)
	}
	if l.o.Quiet {
		if e.Kind == runner.EventAttemptEnd {
			l.attemptProblems(e.Record)
		}
		return
	}
	if l.o.LogFormat == "json" {
		l.json(e)
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
		l.printf("%v; waiting %s for the refill (--when-empty wait)", e.Empty, formatDuration(e.Wait))
	case runner.EventHook:
		l.hook(e)
	}
}

// hook logs what --on-retry did: a line when it failed (the run goes on),
// with -v one when it succeeded.
func (l *logger) hook(e runner.Event) {
	h := e.Hook
	switch {
	case h.Stopped != nil && !errors.Is(h.Stopped, runner.ErrAttemptTimeout):
		l.printf("--on-retry before attempt %d: %v after %s", e.Attempt, h.Err, formatDuration(h.Duration))
	case h.Err != nil:
		l.printf("--on-retry before attempt %d: %v after %s; the run goes on", e.Attempt, h.Err, formatDuration(h.Duration))
	case l.o.Verbose:
		l.printf("--on-retry before attempt %d: exit status 0 in %s", e.Attempt, formatDuration(h.Duration))
	}
}

// inARow says how many successes in a row the run has, with --consecutive:
// " (2/3 in a row)"; "" without.
func (l *logger) inARow(r *runner.Record) string {
	if r == nil || l.consecutive <= 1 {
		return ""
	}
	return fmt.Sprintf(" (%d/%d in a row)", r.Streak, l.consecutive)
}

func (l *logger) attemptLabel(n int) string {
	if m := l.maxAttempts; m > 0 {
		return fmt.Sprintf("attempt %d/%d", n, m)
	}
	return fmt.Sprintf("attempt %d", n)
}

func (l *logger) attemptEnd(r *runner.Record) {
	l.last = r
	if l.o.Verbose {
		for _, s := range r.Decision.Trace {
			verdict := "no match"
			if s.Matched {
				verdict = "matched, " + s.State.String()
			}
			l.printf("%s: %s: %s (saw %s)", l.attemptLabel(r.Number), s.Name, verdict, valueOrNothing(s.Value))
		}
		// One log line per header: every line keeps the "retry:" prefix.
		for _, line := range exchangeLines(r.Result.Info) {
			l.printf("%s: %s", l.attemptLabel(r.Number), line)
		}
	}
	for _, w := range r.Decision.Warnings {
		l.printf("%s: warning: %s", l.attemptLabel(r.Number), w)
	}
	l.attemptProblems(r)
	d := r.Decision.Directive
	if r.Result.Stopped != nil && d == acceptor.NoDecision {
		return // stopped by the deadline or a signal: the end line says so
	}
	if d == acceptor.Succeed && (l.consecutive <= 1 || r.Streak >= l.consecutive) {
		return // the success that ends the run: the end line says so
	}
	line := fmt.Sprintf("%s: %s: %s [%s]%s", l.attemptLabel(r.Number), resultText(r), d, decidedBy(r.Decision), l.inARow(r))
	if l.notYet(r) {
		line = fmt.Sprintf("%s: %s: %s%s", l.attemptLabel(r.Number), resultText(r), l.pending(r), l.inARow(r))
	}
	if r.Retried {
		line += "; next attempt in " + formatDuration(r.Delay)
		if r.RetryAfter > 0 {
			line += " (" + retryAfterText("server asked for ", r) + ")"
		}
	}
	l.printf("%s", line)
}

func (l *logger) end(out *runner.Outcome) {
	n := len(out.Attempts)
	el := formatDuration(out.Elapsed)
	last := out.Last()
	if last != nil {
		n = last.Number // a durable sequence counts its attempts across invocations
	}
	switch out.End {
	case runner.EndScheduled:
		if last != nil {
			due := out.Next
			l.printf("attempt %s is due at %s, in %s: a later invocation with --state %s makes it", attemptOf(n+1, l.maxAttempts), due.UTC().Format(stateTime), formatDuration(last.Delay), l.state)
		}
	case runner.EndSuccess:
		if n == 1 {
			l.printf("succeeded on the first attempt in %s", el)
		} else {
			l.printf("succeeded on attempt %d after %s%s", n, el, l.inARow(last))
		}
	case runner.EndFailure:
		if last == nil || last.Result.Stopped != nil && last.Decision.Directive == acceptor.NoDecision {
			l.printf("failed after %s: %v", el, out.Err)
			return
		}
		detail := decidedBy(last.Decision)
		switch {
		case last.Decision.Detail != "":
			detail += ": " + last.Decision.Detail
		case last.Decision.Source == acceptor.FromAcceptor && last.Decision.Value != "":
			detail += fmt.Sprintf(" (saw %s)", last.Decision.Value)
		case last.Decision.Source == acceptor.FromFallback, last.Decision.Source == acceptor.FromRetrySafety:
			detail = last.Decision.Value
		}
		what := "failed"
		if l.o.Wait {
			what = "waiter reached a failure state"
		}
		l.printf("%s on attempt %d after %s: %s", what, n, el, detail)
	case runner.EndAttempts:
		msg := "max attempts exceeded"
		l.printf("gave up after %s in %s: %s%s%s", plural(n, "attempt"), el, msg, l.inARow(last), l.lastState(out))
	case runner.EndDeadline:
		msg := "time budget exceeded"
		if l.p.maxTime > 0 {
			msg += " (--max-time " + formatDuration(l.p.maxTime) + ")"
		}
		if last != nil && last.RetryAfter > 0 && last.Delay == 0 {
			msg += "; " + retryAfterText("the server asked to retry in ", last)
		}
		l.printf("gave up after %s in %s: %s%s%s", plural(n, "attempt"), el, msg, l.inARow(last), l.lastState(out))
	case runner.EndBucket:
		hint := "--when-empty wait waits for the refill"
		if l.o.WhenEmpty == "wait" {
			hint = "the refill would come after --max-time " + formatDuration(l.p.maxTime)
		}
		l.printf("gave up after %s in %s: --scope %s: %v (%s)%s", plural(n, "attempt"), el, l.o.Scope, out.Err, hint, l.lastState(out))
	case runner.EndInterrupted:
		during := ""
		if last != nil {
			during = fmt.Sprintf(" during attempt %d", n)
		}
		l.printf("%v%s after %s; no further attempt", out.Err, during, el)
	}
}

// attemptProblems prints what went wrong with an attempt's processes, even
// with -q: a leader stopped waiting for the terminal (once per run), and
// processes the sweep could not end.
func (l *logger) attemptProblems(r *runner.Record) {
	if errors.Is(r.Result.Err, command.ErrTerminalStop) && !l.ttyHinted {
		l.ttyHinted = true
		l.warn("attempt %d is stopped waiting for the terminal; use --foreground for interactive commands", r.Number)
	}
	for _, w := range r.Result.Warnings {
		l.warn("%s: warning: %s", l.attemptLabel(r.Number), w)
	}
}

// notYet reports whether r is a wait's poll that no acceptor decided: a
// successful attempt the fallback polls again. The log calls it "not yet".
func (l *logger) notYet(r *runner.Record) bool {
	return l.o.Wait && r.Decision.Source == acceptor.FromFallback && r.Decision.Directive == acceptor.RetryServer && !r.Result.Failed
}

// pending says what a not-yet poll saw: `Table.TableStatus = "CREATING": not
// yet`, or "not yet" when no path acceptor looked at it.
func (l *logger) pending(r *runner.Record) string {
	if p := r.Decision.Pending(); p != "" {
		return p + ": not yet"
	}
	return "not yet"
}

// lastState names, for a wait that gave up, the last state an acceptor
// accepted: "; last state: retry (server-side) [--retry …]". As botocore's
// "previously accepted state", it is the latest attempt an acceptor decided,
// looking past attempts the fallback decided and an attempt the deadline
// stopped (which has no decision); it is empty when no acceptor ever
// matched.
func (l *logger) lastState(out *runner.Outcome) string {
	if !l.o.Wait {
		return ""
	}
	for i := len(out.Attempts) - 1; i >= 0; i-- {
		d := out.Attempts[i].Decision
		if d.Directive != acceptor.NoDecision && d.Source == acceptor.FromAcceptor {
			return fmt.Sprintf("; last state: %s [%s]", d.Directive, d.Name)
		}
	}
	return ""
}

// resultText says what an attempt did: "exit status 1", "HTTP 503",
// "timed out after 2s", "command not found".
func resultText(r *runner.Record) string {
	a := r.Result.Attempt
	switch {
	case a.TimedOut:
		return "timed out after " + formatDuration(r.Duration)
	case a.Err != nil:
		return a.Err.Error()
	case a.Kind == acceptor.TCPAttempt:
		return "connection accepted"
	case a.Status != 0:
		s := fmt.Sprintf("HTTP %d", a.Status)
		if a.ErrorCode != "" {
			s += " " + a.ErrorCode
		}
		return s
	}
	s := fmt.Sprintf("exit status %d", a.ExitCode)
	if a.ErrorCode != "" {
		s += ", error " + a.ErrorCode
	}
	return s
}

// retryAfterText describes the retry-after hint of r after lead ("server asked
// for "): "server asked for 50ms"; when --max-retry-after capped it, "server
// asked for 2m0s, capped at 20ms by --max-retry-after".
func retryAfterText(lead string, r *runner.Record) string {
	asked := r.Result.Attempt.RetryAfter
	s := lead + formatDuration(asked)
	if asked > r.RetryAfter {
		s += fmt.Sprintf(", capped at %s by --max-retry-after", formatDuration(r.RetryAfter))
	}
	return s
}

// decidedBy says who decided: the matching acceptor, the retry-safety rule's
// reason, or that no acceptor matched (the fallback decided). An attempt
// nothing decided has no name: "".
func decidedBy(d acceptor.Decision) string {
	switch d.Source {
	case acceptor.FromAcceptor, acceptor.NoSource:
		return d.Name
	case acceptor.FromRetrySafety:
		return d.Value
	}
	return "no acceptor matched"
}

// valueOrNothing is what an acceptor saw, as the -v trace shows it:
// "nothing" for no value.
func valueOrNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// event writes a line of a durable invocation (--state) that no strategy
// event carries: text, or with --log-format json an object with event kind
// and fields. -q silences it.
func (l *logger) event(kind, text string, fields map[string]any) {
	if l.o.Quiet {
		return
	}
	if l.o.LogFormat != "json" {
		l.printf("%s", text)
		return
	}
	obj := map[string]any{"event": kind, "state": l.state, "message": text, "time": time.Now().UTC().Format(time.RFC3339Nano)}
	for k, v := range fields {
		obj[k] = v
	}
	b, _ := json.Marshal(obj)
	lead, _ := json.Marshal(kind) // {"retry":EVENT first, as every JSON log line
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "{\"retry\":%s,%s\n", lead, b[1:])
}

// json writes one JSON object per event.
func (l *logger) json(e runner.Event) {
	var obj map[string]any
	switch e.Kind {
	case runner.EventAttemptEnd:
		obj = recordJSON(e.Record)
		obj["event"] = "attempt"
		obj["max_attempts"] = e.MaxAttempts
		if l.notYet(e.Record) {
			obj["pending"] = l.pending(e.Record)
		}
		if l.o.Verbose {
			obj["trace"] = e.Record.Decision.Trace
		}
	case runner.EventBucketWait:
		obj = map[string]any{"event": "bucket_wait", "attempt": e.Record.Number, "wait_ms": e.Wait.Milliseconds(),
			"cost": e.Empty.Cost, "available": e.Empty.Available, "capacity": e.Empty.Capacity}
	case runner.EventHook:
		obj = map[string]any{"event": "on_retry", "attempt": e.Attempt, "duration_ms": float64(e.Hook.Duration.Microseconds()) / 1000}
		if e.Hook.Err != nil {
			obj["error"] = e.Hook.Err.Error()
		}
	case runner.EventEnd:
		obj = map[string]any{"event": "end", "outcome": e.Outcome.End.String(), "attempts": attemptCount(e.Outcome),
			"elapsed_ms": e.Outcome.Elapsed.Milliseconds()}
		if l.state != "" {
			obj["state"] = l.state
		}
		if e.Outcome.Err != nil {
			obj["error"] = e.Outcome.Err.Error()
		}
	default:
		return
	}
	obj["time"] = e.Time.UTC().Format(time.RFC3339Nano)
	b, _ := json.Marshal(redactJSON(obj))
	// Every line of retry's JSON log starts with {"retry":EVENT, so that
	// with the command's stderr on the same stream a reader keeps the lines
	// starting with {"retry": (README "Machine-readable logs").
	lead, _ := json.Marshal(obj["event"])
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "{\"retry\":%s,%s\n", lead, b[1:])
}

// sleep sleeps between attempts; on a terminal it shows a status line with
// the elapsed time, the attempt and the countdown, updated every 200ms, and
// clears it after.
func (l *logger) sleep(ctx context.Context, d time.Duration) error {
	if !l.tty || d < time.Second {
		return bucket.Sleep(ctx, d)
	}
	now := l.now
	end := now().Add(d)
	defer l.status("")
	for {
		left := end.Sub(now())
		if left <= 0 {
			return context.Cause(ctx)
		}
		label := formatDuration(now().Sub(l.start).Round(100*time.Millisecond)) + " elapsed"
		if l.last != nil {
			what := l.last.Decision.Directive.String()
			if l.notYet(l.last) {
				what = l.pending(l.last)
			}
			label += fmt.Sprintf(", %s: %s, %s", l.attemptLabel(l.last.Number), resultText(l.last), what)
			if c := l.consecutive; c > 1 {
				label += fmt.Sprintf(", %d/%d in a row", l.last.Streak, c)
			}
		}
		l.status(fmt.Sprintf("%s; next attempt in %s", label, left.Round(100*time.Millisecond)))
		if err := bucket.Sleep(ctx, min(left, 200*time.Millisecond)); err != nil {
			return err
		}
	}
}

// status replaces the terminal's status line; "" clears it.
func (l *logger) status(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s == "" {
		fmt.Fprint(l.w, "\r\x1b[K")
		return
	}
	fmt.Fprintf(l.w, "\r\x1b[Kretry: %s", s)
}

// recordJSON is one attempt as the report and the JSON log show it.
func recordJSON(r *runner.Record) map[string]any {
	a := r.Result.Attempt
	m := map[string]any{
		"attempt":     r.Number,
		"start":       r.Start.UTC().Format(time.RFC3339Nano),
		"duration_ms": float64(r.Duration.Microseconds()) / 1000,
		"directive":   r.Decision.Directive.String(),
		"delay_ms":    r.Delay.Milliseconds(),
	}
	if reason := r.Decision.Directive.Reason(); reason != "" {
		m["reason"] = reason
	}
	if r.Decision.Directive == acceptor.NoDecision && r.Result.Stopped != nil {
		m["directive"] = "stopped"
		m["stopped"] = r.Result.Stopped.Error()
	}
	switch r.Decision.Source {
	case acceptor.FromAcceptor:
		m["acceptor"] = r.Decision.Name
	case acceptor.NoSource:
		// A stopped attempt: nothing evaluated it, "directive" says so.
	default:
		m["acceptor"] = r.Decision.Source.String() // "fallback" or "retry safety"
	}
	if r.Decision.Value != "" {
		m["value"] = r.Decision.Value
	}
	if r.Decision.Detail != "" {
		m["detail"] = r.Decision.Detail
	}
	if a.HasExitCode() {
		m["exit_code"] = a.ExitCode
	}
	if a.Status != 0 {
		m["status"] = a.Status
	}
	if a.ErrorCode != "" {
		m["error_code"] = a.ErrorCode
	}
	if a.Err != nil {
		m["error"] = a.Err.Error()
	}
	if a.TimedOut {
		m["timed_out"] = true
	}
	if r.RetryAfter > 0 {
		m["retry_after_ms"] = r.RetryAfter.Milliseconds()
	}
	if r.Streak > 0 {
		m["in_a_row"] = r.Streak
	}
	if h := r.Hook; h != nil {
		hook := map[string]any{"duration_ms": float64(h.Duration.Microseconds()) / 1000}
		if h.Err != nil {
			hook["error"] = h.Err.Error()
		}
		m["on_retry"] = hook
	}
	if len(r.Result.Info) > 0 {
		m["http"] = infoJSON(r.Result.Info)
	}
	return m
}

// writeReport writes the JSON report of --report.
func writeReport(o *Options, p *plan, out *runner.Outcome, code int) error {
	attempts := make([]map[string]any, len(out.Attempts))
	for i := range out.Attempts {
		attempts[i] = recordJSON(&out.Attempts[i])
		addTails(attempts[i], out.Attempts[i].Result.Attempt)
	}
	rep := map[string]any{
		"command":    o.name(),
		"target":     redact.Argv(p.describe),
		"outcome":    out.End.String(),
		"exit_code":  code,
		"started":    out.Start.UTC().Format(time.RFC3339Nano),
		"elapsed_ms": float64(out.Elapsed.Microseconds()) / 1000,
		"attempts":   attempts,
	}
	if o.Consecutive > 1 {
		rep["consecutive"] = o.Consecutive
	}
	if out.Err != nil {
		rep["error"] = out.Err.Error()
	}
	if o.State != "" {
		rep["state"] = o.State // attempts carry the sequence's numbers
	}
	b, err := json.MarshalIndent(redactJSON(rep), "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp := o.Report + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, o.Report)
}

// redactJSON hides secrets in the strings of a JSON log event or report
// before they are encoded (redact.Text), in maps and slices at any depth.
func redactJSON(v any) any {
	switch x := v.(type) {
	case string:
		return redact.Text(x)
	case map[string]any:
		for k, e := range x {
			x[k] = redactJSON(e)
		}
	case map[string]string:
		out := make(map[string]string, len(x))
		for k, e := range x {
			out[k] = redact.Text(e)
		}
		return out
	case []map[string]any:
		for _, e := range x {
			redactJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = redactJSON(e)
		}
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = redact.Text(e)
		}
		return out
	}
	return v
}
