package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/cmd/internal/sinks"
	"github.com/retry-dev/retry/cmd/internal/sources"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// runRetry runs the plan p, writing on p.IO, and closes it. It returns the
// outcome (nil when no strategy ran here: a --state invocation) and how
// the invocation ended, for Main to map to an exit status (exitStatus):
// retry's own error, or a *runEnd. It never exits. Cancelling ctx with an
// *runner.Interrupt cause stops the run as that signal would.
func runRetry(ctx context.Context, p *plan.Plan, proc *process) (*runner.Outcome, error) {
	defer p.Close()
	// The run's context lasts until the sinks are finished: a signal that
	// comes while a sink waits for a FIFO's reader ends that wait too.
	ctx, interrupt := context.WithCancelCause(ctx)
	defer interrupt(nil)
	if p.LogFile != nil {
		defer p.LogFile.Close() // finish closed it already, unless it panicked
		context.AfterFunc(ctx, p.LogFile.Abort)
	}
	l := newLogs(p)
	l.interrupt = interrupt
	for _, w := range p.Warnings {
		l.lines.Warn("%s", w)
	}

	if p.State != nil {
		r := runDurable(ctx, p, l, proc)
		return nil, l.finish(ctx, p, r)
	}
	r := execute(ctx, p, l, proc, nil)
	return r.out, l.finish(ctx, p, r)
}

// execute starts proc's switches (signals cancel the run), runs the
// strategy of p (resume: --state's attempt), its events fanned out to the
// sinks of l, until it ends or ctx is done, writes the final stdout, and
// returns how the run ended.
func execute(ctx context.Context, p *plan.Plan, l *logs, proc *process, resume *runner.Resume) *runEnd {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	proc.start(l.cancelRun(cancel), p, l.lines.Warn)

	fan := l.fanOut()
	// The end line waits for the final stdout, so that with 2>&1 the last
	// attempt's output comes before "gave up" or "succeeded", as it ran.
	var end *runner.Event
	out := p.Run(ctx, plan.Hooks{
		Observe: func(e runner.Event) {
			if e.Kind == runner.EventEnd {
				end = &e
				return
			}
			fan.Observe(e)
		},
		Sleep:  l.sleep,
		Warn:   l.lines.Warn,
		Resume: resume,
	})
	r := newRunEnd(p, out)

	var broken *output.StreamError
	if p.Final && out.End != runner.EndScheduled && !errors.As(out.Err, &broken) { // a broken stream stopped the run: nothing whole to write
		r.final = writeFinal(p, out, l)
	}
	if end != nil {
		fan.Observe(*end)
	}
	if r.final != nil {
		l.lines.Warn("%v", r.final)
	}
	for _, rec := range []*runner.Record{out.Last(), out.Whole()} {
		if rec != nil && rec.Result.Release != nil {
			rec.Result.Release()
		}
	}
	return r
}

// finish writes the end sinks of a run (l.end: the CI's files, the
// --log-file's close, the --report) with its exit status. A sink that
// could not be written is one line on stderr naming it, with the run's
// own outcome and status, and makes the exit status 74, as for stdout; a
// signal that came meanwhile (while a sink waited for a FIFO's reader)
// ends the run with 128+N. It returns r, with what happened to the sinks.
func (l *logs) finish(ctx context.Context, p *plan.Plan, r *runEnd) *runEnd {
	runCode := exitStatus(r)
	failed := l.end.Finish(sinks.End{Command: p.Name(), Outcome: r.out, Status: runCode, Done: ctx.Done()})
	if !errors.As(context.Cause(ctx), &r.signal) {
		r.sinkFailed = len(failed) > 0
	}
	code := exitStatus(r)
	for _, f := range failed {
		run := fmt.Sprintf("exit status %d", runCode)
		if r.out != nil {
			run = fmt.Sprintf("the run: %s, %s", r.out.End, run)
		}
		fmt.Fprint(l.stderr, echo.Sprintf("retry: %s: %v (%s); exit status %d\n", f.Sink, f.Err, run, code))
	}
	return r
}

// writeFinal writes the last attempt's stdout (wait: or its --query
// projection) to stdout (p.Final: not for wait -q). A wait whose last
// poll was stopped midway (by --max-time or a signal) writes the last
// whole poll's instead, and says so on stderr: the last state seen, never a stopped poll's partial JSON;
// with no whole poll before it, it writes nothing and says so.
func writeFinal(p *plan.Plan, out *runner.Outcome, l *logs) error {
	last := out.Last()
	if last == nil {
		return nil
	}
	if w := out.Whole(); w != nil {
		l.lines.Warn("attempt %d was stopped before it finished: stdout is attempt %d's, the last state seen whole", last.Number, w.Number)
		last = w
	} else if p.Wait && stoppedMidway(last) {
		// No poll before it finished whole: the stopped poll's output is
		// empty or cut (partial JSON), and a reader could not tell.
		l.lines.Warn("attempt %d was stopped before it finished and no poll before it finished: nothing written to stdout", last.Number)
		return nil
	}
	var cut *output.LimitError
	if errors.As(last.Result.Attempt.Err, &cut) {
		// A consumer cannot tell a cut stdout from a whole one: nothing of
		// it is written, and the run never exits 0.
		return fmt.Errorf("stdout of attempt %d not written: %v, and a cut stdout is not the attempt's output", last.Number, cut)
	}
	if p.Query != nil {
		return writeQuery(p, last.Result.Attempt, out.End == runner.EndSuccess)
	}
	if sources.Of(p.Kind).Body && !bodyIsOutput(p, out, last) {
		// As curl -f: a failed call's body is not the output.
		return l.retried.WriteBody(last, p.Strategy.MaxAttempts)
	}
	rc, err := last.Result.OpenStdout()
	if err != nil {
		return &output.StreamError{Stream: "stdout", Keeping: true, Err: err}
	}
	defer rc.Close()
	return copyStdout(p.IO.Out, rc)
}

// stoppedMidway reports whether r, a wait's last poll, was stopped before
// it finished by --max-time or a signal (not by --attempt-timeout: a timed
// out poll is evaluated, and is a poll like any other). A streamed attempt
// (wait --watch) that printed a whole document is not: its stdout is the
// last of them, a state seen whole.
func stoppedMidway(r *runner.Record) bool {
	cause := r.Result.Stopped
	return cause != nil && !errors.Is(cause, runner.ErrAttemptTimeout) && r.Result.Documents == 0
}

// copyStdout copies kept stdout (a spill file, or memory) to retry's
// stdout: a failed read is stdout not kept whole, a failed write stdout
// not written.
func copyStdout(w io.Writer, rc io.ReadCloser) error {
	if s, ok := w.(*iostreams.Interruptible); ok {
		// On the file itself (sendfile(2) needs it), abandoned by a signal.
		err := s.Do(func(f *os.File) error { return copyStdout(f, rc) })
		if err != nil && !errors.As(err, new(*output.StreamError)) {
			err = &output.StreamError{Stream: "stdout", Err: err} // abandoned: a signal came
		}
		return err
	}
	var err error
	if r, ok := rc.(*output.Reader); ok {
		_, err = r.WriteTo(w) // what io.Copy would call, without its run-time interface assertion
	} else {
		_, err = io.Copy(w, rc)
	}
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && pe.Op == "read" {
			return &output.StreamError{Stream: "stdout", Keeping: true, Err: err}
		}
		return &output.StreamError{Stream: "stdout", Err: err}
	}
	return nil
}

// bodyIsOutput reports whether the body of last, an attempt whose body is
// to be written (an HTTP call's), is the run's output: the run succeeded, or a
// wait's call was answered (2xx: its JSON is the state the wait reached).
// Otherwise, as curl -f, it goes to stderr.
func bodyIsOutput(p *plan.Plan, out *runner.Outcome, last *runner.Record) bool {
	if out.End == runner.EndSuccess {
		return true
	}
	return p.Wait && last != nil && !last.Result.Failed
}
