package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/cmd/internal/sinks"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// runRetry validates o and runs it, writing on o.IO, and returns the
// outcome (nil when no strategy ran here: a usage error, --list-waiters, a
// --state invocation) and nil or the *exitError that carries the exit
// status, for exitCode to write and map. It never exits. Cancelling ctx
// with an *runner.Interrupt cause stops the run as that signal would.
func runRetry(ctx context.Context, o *plan.Options, proc *process) (*runner.Outcome, error) {
	if o.Waiter.List {
		return nil, plan.ListWaiters(o)
	}
	p, err := plan.Build(o)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	// The run's context lasts until the sinks are finished: a signal that
	// comes while a sink waits for a FIFO's reader ends that wait too.
	ctx, interrupt := context.WithCancelCause(ctx)
	defer interrupt(nil)
	if p.LogFile != nil {
		defer p.LogFile.Close() // finish closed it already, unless it panicked
		context.AfterFunc(ctx, p.LogFile.Abort)
	}
	if o.Output.Report != "" {
		p.Strategy.KeepTail = sinks.ReportTail // the report shows each attempt's tails
	}
	l := newLogs(o, p)
	l.interrupt = interrupt
	if o.Net.Insecure && p.HTTP { // a security warning: printed even with -q
		l.lines.Warn("--insecure: the server's TLS certificate is not verified; anyone on the path can read and change this call")
	}
	for _, w := range p.ExprWarnings {
		l.lines.Warn("warning: %s", w)
	}

	if p.State != nil {
		err := runDurable(ctx, o, p, l, proc)
		if !l.finished { // nothing ran: the --log-file may still have failed
			if code := l.finish(ctx, o, p, nil, statusOf(err)); code != statusOf(err) {
				return nil, exit.For(code)
			}
		}
		return nil, err
	}
	out, code := execute(ctx, o, p, l, proc)
	return out, exit.For(l.finish(ctx, o, p, out, code))
}

// statusOf is the exit status err carries (exit.Error), 0 for nil.
func statusOf(err error) int {
	var ee *exit.Error
	if errors.As(err, &ee) {
		return ee.Code
	}
	if err != nil {
		return exit.Failure
	}
	return exit.OK
}

// execute starts proc's switches (signals cancel the run), runs the
// strategy of p, its events fanned out to the sinks of l, until it ends or
// ctx is done, writes the final stdout, and returns the outcome and its
// exit status.
func execute(ctx context.Context, o *plan.Options, p *plan.Plan, l *logs, proc *process) (*runner.Outcome, int) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	proc.start(l.cancelRun(cancel), p, l.lines.Warn)

	p.Warn = l.lines.Warn
	fan := l.fanOut()
	// The end line waits for the final stdout, so that with 2>&1 the last
	// attempt's output comes before "gave up" or "succeeded", as it ran.
	var end *runner.Event
	p.Strategy.Observe = func(e runner.Event) {
		if e.Kind == runner.EventEnd {
			end = &e
			return
		}
		fan.Observe(e)
	}
	p.Strategy.Sleep = l.sleep
	if sleep := o.IO.BudgetSleep(); sleep != nil {
		p.Strategy.Sleep = sleep // the retry budget sees the time retry waits
	}
	out := p.Strategy.Run(ctx, p.Source)

	var finalErr error
	var broken *output.StreamError
	if p.Final && out.End != runner.EndScheduled && !errors.As(out.Err, &broken) { // a broken stream stopped the run: nothing whole to write
		finalErr = writeFinal(o, p, out, l)
	}
	if end != nil {
		fan.Observe(*end)
	}
	if finalErr != nil {
		l.lines.Warn("%v", finalErr)
	}
	for _, r := range []*runner.Record{out.Last(), out.Whole()} {
		if r != nil && r.Result.Release != nil {
			r.Result.Release()
		}
	}
	code := exitStatus(o, p, out)
	switch {
	case code != exit.OK || finalErr == nil:
	case p.Query != nil && !isWriteError(finalErr):
		code = exit.Query // the wait succeeded, but the projection asked for cannot be computed
	case errors.As(out.Last().Result.Attempt.Err, new(*output.LimitError)):
		code = exit.Failure // an acceptor took the cut attempt for a success; its output is not whole
	default:
		// Like cat: output that could not be written (a full device, a
		// closed pipe) or kept whole is an error, never exit 0.
		code = exit.ForStream(finalErr)
	}
	l.ci.Finish(o.Name(), out, code, ctx.Done())
	return out, code
}

// finish ends the sinks of a run the user asked for: it closes the
// --log-file (giving up on a FIFO whose reader never came) and writes the
// --report (out nil: nothing ran, no report). A sink that could not be
// written is one line on stderr naming it, with the run's own outcome, and
// exit status 74, as for stdout; a signal that came meanwhile (while a sink
// waited for a FIFO's reader) ends the run with 128+N. It returns the exit
// status.
func (l *logs) finish(ctx context.Context, o *plan.Options, p *plan.Plan, out *runner.Outcome, code int) int {
	l.finished = true
	type failure struct {
		sink string
		err  error
	}
	var failed []failure
	if p.LogFile != nil {
		if err := p.LogFile.Close(); err != nil {
			failed = append(failed, failure{"--log-file " + o.Output.LogFile, err})
		}
	}
	if out != nil && o.Output.Report != "" {
		cfg := sinks.ReportConfig{Path: o.Output.Report, Command: o.Name(), Target: p.Describe, Consecutive: o.Budget.Consecutive}
		if p.State != nil {
			cfg.State = p.State.Name
		}
		if err := sinks.WriteReport(cfg, out, code, ctx.Done()); err != nil {
			failed = append(failed, failure{"--report " + o.Output.Report, err})
		}
	}
	runCode := code
	var intr *runner.Interrupt
	if errors.As(context.Cause(ctx), &intr) {
		code = 128 + int(intr.Signal) // a signal ends the run with 128+N, even a sink's wait
	} else if len(failed) > 0 {
		code = exit.IOError
	}
	for _, f := range failed {
		run := fmt.Sprintf("exit status %d", runCode)
		if out != nil {
			run = fmt.Sprintf("the run: %s, %s", out.End, run)
		}
		fmt.Fprintf(l.stderr, "retry: %s: %v (%s); exit status %d\n", f.sink, f.err, run, code)
	}
	return code
}

// exitStatus maps an outcome to retry's exit status (SPEC "Exit status").
func exitStatus(o *plan.Options, p *plan.Plan, out *runner.Outcome) int {
	last := out.Last()
	switch out.End {
	case runner.EndSuccess:
		return exit.OK
	case runner.EndInterrupted:
		var intr *runner.Interrupt
		if errors.As(out.Err, &intr) {
			return 128 + int(intr.Signal)
		}
		return 128 + int(syscall.SIGTERM)
	case runner.EndDeadline:
		return exit.Timeout
	case runner.EndScheduled:
		return exit.TempFail
	}
	var broken *output.StreamError
	if errors.As(out.Err, &broken) {
		return exit.ForStream(broken)
	}
	if out.End == runner.EndFailure && last != nil && last.Decision.Usage {
		return exit.Usage // the command line is wrong (k8s: stdout not JSON)
	}
	if o.Wait {
		if out.End == runner.EndFailure {
			// A command that cannot be executed or was not found, when no
			// acceptor claimed it, exits 126/127 as in run (SPEC "Exit
			// status"), not 1: it is a broken command line, not a state.
			if last != nil && !p.HTTP && last.Decision.Source != acceptor.FromAcceptor && last.Decision.Directive == acceptor.Fail {
				if a := last.Result.Attempt; a.NotStarted || a.ExitCode == exit.NotExec || a.ExitCode == exit.NotFound {
					return a.ExitCode
				}
			}
			return exit.Failure
		}
		return exit.Timeout // gave up: attempts, or an empty bucket
	}
	if last == nil {
		return exit.Failure
	}
	a := last.Result.Attempt
	switch {
	case a.TimedOut:
		return exit.Timeout
	case errors.As(a.Err, new(*output.StreamError)):
		return exit.IOError // the body could not be kept whole
	case p.HTTP:
		return exit.Failure
	case errors.As(a.Err, new(*output.LimitError)):
		return exit.Failure // retry stopped it: its status says nothing
	case a.ExitCode == 0:
		// A failure acceptor matched a zero exit status: still a failure.
		return exit.Failure
	}
	return a.ExitCode
}

// writeFinal writes the last attempt's stdout (wait: or its --query
// projection) to stdout. A wait whose last poll was stopped midway (by
// --max-time or a signal) writes the last whole poll's instead, and says
// so on stderr: the last state seen, never a stopped poll's partial JSON.
func writeFinal(o *plan.Options, p *plan.Plan, out *runner.Outcome, l *logs) error {
	last := out.Last()
	if last == nil || (o.Wait && o.Output.Quiet) {
		return nil
	}
	if w := out.Whole(); w != nil {
		l.lines.Warn("attempt %d was stopped before it finished: stdout is attempt %d's, the last state seen whole", last.Number, w.Number)
		last = w
	}
	var cut *output.LimitError
	if errors.As(last.Result.Attempt.Err, &cut) {
		// A consumer cannot tell a cut stdout from a whole one: nothing of
		// it is written, and the run never exits 0.
		return fmt.Errorf("stdout of attempt %d not written: %v, and a cut stdout is not the attempt's output", last.Number, cut)
	}
	if p.Query != nil {
		return writeQuery(o, p, last.Result.Attempt, out.End == runner.EndSuccess)
	}
	if p.HTTP && !httpSucceeded(o, out, last) {
		// As curl -f: a failed call's body is not the output.
		return l.retried.WriteBody(last, p.Strategy.MaxAttempts)
	}
	rc, err := last.Result.OpenStdout()
	if err != nil {
		return &output.StreamError{Stream: "stdout", Keeping: true, Err: err}
	}
	defer rc.Close()
	return copyStdout(o.IO.Out, rc)
}

// copyStdout copies kept stdout (a spill file, or memory) to retry's
// stdout: a failed read is stdout not kept whole, a failed write stdout
// not written.
func copyStdout(w io.Writer, rc io.ReadCloser) error {
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

// httpSucceeded reports whether the body of last, an HTTP run's attempt
// whose body is to be written, is its output: the run succeeded, or a
// wait's call was answered (2xx: its JSON is the state the wait reached).
// Otherwise, as curl -f, it goes to stderr.
func httpSucceeded(o *plan.Options, out *runner.Outcome, last *runner.Record) bool {
	if out.End == runner.EndSuccess {
		return true
	}
	return o.Wait && last != nil && !last.Result.Failed
}

// isWriteError reports whether err is a failed write (a device error, a
// closed pipe) rather than a failure to compute what to write.
func isWriteError(err error) bool {
	var pe *os.PathError
	var se *output.StreamError
	return errors.As(err, &pe) || errors.As(err, &se) || errors.Is(err, syscall.EPIPE)
}
