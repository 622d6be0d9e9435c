package cmd

import (
	"context"
	"io"
	"time"

	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/cmd/internal/sinks"
)

// logs are the sinks of a run, built from its plan: the lines
// retry writes (on stderr or the --log-file), the text or JSON log, the CI
// markup, and the output of retried attempts. The sinks themselves know
// only the small configs built here.
type logs struct {
	lines   *sinks.Lines
	log     sinks.Log
	text    *sinks.Text // the text log, whose status line sleeps; nil for JSON
	ci      *sinks.CI   // nil outside CI
	retried *sinks.Retried
	// end are the sinks written once the run has ended, in order: the CI's
	// files (whose warnings go to the --log-file), the --log-file's close,
	// the --report.
	end sinks.EndSinks

	stderr io.Writer // retry's stderr, where a sink that failed is reported
	// interrupt cancels the run's context beyond execute (the sinks wait
	// on it).
	interrupt context.CancelCauseFunc
}

// cancelRun is what a signal does: it cancels the attempts (cancel) and
// the waits of the sinks (interrupt), with the same cause.
func (l *logs) cancelRun(cancel context.CancelCauseFunc) context.CancelCauseFunc {
	return func(cause error) {
		if l.interrupt != nil {
			l.interrupt(cause)
		}
		cancel(cause)
	}
}

// newLogs builds the sinks of a run as p planned it.
func newLogs(p *plan.Plan) *logs {
	var stderr io.Writer = p.IO.ErrOut
	if p.Stderr != nil {
		stderr = p.Stderr.Log() // a line of retry's never continues a child's
	}
	system := sinks.ResolveCI(p.Log.CI, p.IO.Env, p.IO.StderrIsTerminal)
	w, tty := stderr, !p.Log.Quiet && !p.Log.JSON && p.IO.StderrIsTerminal
	if p.LogFile != nil {
		w, tty = p.LogFile, false
	}
	l := &logs{lines: sinks.NewLines(w, system == sinks.CIGitHub), stderr: stderr}
	state := ""
	if p.State != nil {
		state = p.State.Name // the password of a Redis URL replaced
	}
	if p.Log.JSON && !p.Log.Quiet {
		j := sinks.NewJSON(sinks.JSONConfig{Wait: p.Wait, Verbose: p.Log.Verbose, State: state}, l.lines)
		l.log = j
	} else {
		l.text = sinks.NewText(sinks.TextConfig{
			Wait: p.Wait, Quiet: p.Log.Quiet, Verbose: p.Log.Verbose,
			MaxTime: p.MaxTime, Scope: p.Log.Scope, WhenEmptyWait: p.Log.WhenEmptyWait,
			State: state, TTY: tty,
		}, l.lines)
		l.log = l.text
	}
	// The markup goes through the log's view of the stderr the attempts
	// share: it always starts a line, even after a command's output
	// without a final line break, and never goes into a --log-file.
	l.ci = sinks.NewCI(sinks.CIConfig{System: system, Quiet: p.Log.Quiet, Wait: p.Wait, Getenv: p.IO.Env,
		NoRetryAnnotation: p.Log.NoRetryAnnotation, FailureAsWarning: p.Log.FailureAsWarning}, l.lines, stderr)
	if p.Log.JSON {
		l.lines.WarnAsJSON() // every line retry writes follows the format
	}
	// The output of retried attempts goes with retry's lines: in the log's
	// format (text: framed, as it was; JSON: a JSON line per line of it),
	// all of it into the --log-file when there is one. On GitHub, text
	// output on stderr is wrapped so that it cannot raise workflow
	// commands; a JSON line starts with {, and cannot.
	var out io.Writer = p.IO.ErrOut
	if p.LogFile != nil {
		out = p.LogFile
	}
	l.retried = sinks.NewRetried(sinks.RetriedConfig{
		Show: p.Log.ShowRetried, Kind: p.Kind, Quiet: p.Log.Quiet,
		JSONFrame: p.Log.JSON,
		Echo:      echo.New(system == sinks.CIGitHub && p.LogFile == nil && !p.Log.JSON),
	}, l.lines, out)

	if l.ci != nil {
		l.end = append(l.end, l.ci)
	}
	if p.LogFile != nil {
		l.end = append(l.end, sinks.LogFile{Stream: p.LogFile})
	}
	if p.Log.Report != "" {
		l.end = append(l.end, sinks.ReportFile{Config: sinks.ReportConfig{Path: p.Log.Report, Command: p.Name(),
			Target: p.Describe, Consecutive: p.Strategy.Consecutive, State: state}})
	}
	return l
}

// fanOut is the order in which the sinks see an event: the CI markup opens
// an attempt's group, a retried attempt's output (output, not a log line:
// written with -q and whatever the format), the log's lines, then the CI
// markup closes the group and annotates.
func (l *logs) fanOut() sinks.FanOut {
	return sinks.FanOut{l.ci.Before(), l.retried, l.log, l.ci.After()}
}

// sleep sleeps between attempts, under the text log's status line on a
// terminal.
func (l *logs) sleep(ctx context.Context, d time.Duration) error {
	if l.text != nil {
		return l.text.Sleep(ctx, d)
	}
	return bucket.Sleep(ctx, d)
}
