package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/human"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/cmd/internal/sinks"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/durable"
)

// runDurable makes at most one attempt of the sequence kept in --state,
// never sleeping: the file is locked for the whole invocation; the attempt
// is recorded as started before it starts; the outcome schedules the next
// attempt (exit 75), clears the state (success) or ends the sequence, which
// later invocations then repeat without running anything.
func runDurable(ctx context.Context, o *plan.Options, p *plan.Plan, l *logs, proc *process) error {
	log := l.log
	cfg := plan.DurableConfig(o, p)

	if err := durable.MakeDir(o.Budget.State); err != nil {
		return stateError(o, log, err)
	}
	fl, err := durable.Lock(o.Budget.State)
	if err != nil {
		return stateError(o, log, err)
	}
	defer fl.Close()
	st, err := fl.Read()
	if err != nil {
		return stateError(o, log, err)
	}
	dirty := false
	if st != nil && st.Identity != cfg.Identity {
		log.Event(sinks.StateEvent{Retry: "new_sequence",
			Message:         fmt.Sprintf("--state %s was made for another command line (%s); starting a new sequence", o.Budget.State, strings.Join(st.Command, " ")),
			PreviousCommand: slices.Clone(st.Command), PreviousStatus: string(st.Status)})
		st = nil
	}
	if st == nil {
		st, dirty = durable.New(cfg), true
	}
	if st.Recover(cfg) {
		dirty = true
		log.Event(sinks.StateEvent{Retry: "unfinished", Attempt: st.Attempts,
			Message: fmt.Sprintf("attempt %d did not finish (retry was killed or crashed); it counts", st.Attempts)})
	}
	now := time.Now()
	before := st.Status
	verdict := st.Check(now, cfg)
	if st.Status != before {
		dirty = true
	}
	if verdict != durable.RunNow {
		if dirty && fl.Exists() {
			if err := fl.Write(st); err != nil {
				return stateError(o, log, err)
			}
		}
		if verdict == durable.NotDue {
			due := st.NextDue
			dueIn := due.Sub(now).Milliseconds()
			log.Event(sinks.StateEvent{Retry: "not_due", Attempt: st.Attempts + 1, Due: due.UTC().Format(time.RFC3339Nano), DueInMS: &dueIn,
				Message: fmt.Sprintf("not due yet: attempt %s is due at %s, in %s; nothing run", human.AttemptOf(st.Attempts+1, cfg.MaxAttempts), due.UTC().Format(human.StateTime), human.Duration(due.Sub(now)))})
			return &exit.Error{Code: exit.TempFail}
		}
		exitCode := st.Exit
		log.Event(sinks.StateEvent{Retry: "ended", Status: string(st.Status), Reason: st.Reason, Attempts: st.Attempts, ExitCode: &exitCode,
			Message: fmt.Sprintf("%s: %s (%s; nothing run: retry state reset %s starts a new sequence)", st.Status, st.Reason, human.Plural(st.Attempts, "attempt"), o.Budget.State)})
		return exit.For(st.Exit)
	}

	previous := st.Previous()
	n := st.Begin(now, cfg, os.Getpid())
	if err := fl.Write(st); err != nil {
		return stateError(o, log, err)
	}
	p.Strategy.Resume = &runner.Resume{Attempt: n, Previous: previous, Start: st.Started}
	out, code := execute(ctx, o, p, l, proc)

	last := out.Last()
	var entry durable.Entry
	if last != nil {
		entry = durable.EntryOf(last, human.Result(last))
	} else { // the bucket or a signal stopped it before the attempt
		entry = durable.NotStarted(n, now)
	}
	end, reason := durableEnd(o, p, out, code)
	giveUpCode := code
	if end == durable.Scheduled {
		giveUpCode = exitStatus(o, p, &runner.Outcome{End: runner.EndAttempts, Attempts: out.Attempts})
	}
	ended := time.Now()
	if end == durable.Scheduled {
		ended = out.Next.Add(-time.Duration(entry.Delay)) // when the delay was planned
	}
	if st.Finish(ended, entry, end, giveUpCode, reason) {
		if err := fl.Remove(); err != nil {
			l.lines.Warn("--state %s: the sequence succeeded, but its state cannot be removed: %v", o.Budget.State, err)
		}
	} else if err := fl.Write(st); err != nil {
		l.lines.Warn("--state %s: the outcome of attempt %d cannot be recorded: %v", o.Budget.State, n, err)
	}
	if end == durable.Stopped && st.Status.Terminal() {
		code = st.Exit
	}
	writeReportOrWarn(o, p, out, code, l)
	return exit.For(code)
}

// durableEnd says how out ends this invocation, and why, in one line.
func durableEnd(o *plan.Options, p *plan.Plan, out *runner.Outcome, code int) (durable.End, string) {
	last := out.Last()
	what := ""
	if last != nil {
		what = fmt.Sprintf("attempt %d: %s: %s", last.Number, human.Result(last), last.Decision.Directive)
		if last.Decision.Directive != 0 {
			what += " [" + human.DecidedBy(last.Decision) + "]"
		}
	}
	switch out.End {
	case runner.EndSuccess:
		return durable.Succeeded, what
	case runner.EndScheduled:
		return durable.Scheduled, what
	case runner.EndInterrupted:
		return durable.Stopped, fmt.Sprintf("%v", out.Err)
	case runner.EndFailure:
		if last == nil {
			return durable.FailedEnd, fmt.Sprintf("%v", out.Err)
		}
		return durable.FailedEnd, what
	case runner.EndAttempts:
		return durable.GaveUp, "max attempts exceeded; last " + what
	case runner.EndDeadline:
		msg := "time budget exceeded"
		if p.Strategy.MaxTime > 0 {
			msg += " (--max-time " + human.Duration(p.Strategy.MaxTime) + " since the first attempt)"
		}
		if what != "" {
			msg += "; last " + what
		}
		return durable.GaveUp, msg
	}
	return durable.GaveUp, fmt.Sprintf("%v; last %s", out.Err, what)
}

// stateError maps what Lock, Read and Write return: busy is exit 75 at
// once; anything else is retry's own error, nothing run (125).
func stateError(o *plan.Options, log sinks.Log, err error) error {
	var corrupt *durable.CorruptError
	var refused *durable.RefusedError
	switch {
	case errors.Is(err, durable.ErrBusy):
		log.Event(sinks.StateEvent{Retry: "busy", Message: fmt.Sprintf("--state %s: busy: another retry is making an attempt of this sequence; nothing run", o.Budget.State)})
		return &exit.Error{Code: exit.TempFail}
	case errors.As(err, &corrupt):
		return exit.Usagef("--state %s: %v; nothing run: look at it, then retry state reset %s starts a new sequence", o.Budget.State, err, o.Budget.State)
	case errors.As(err, &refused):
		return exit.Usagef("--state %v", err)
	}
	return exit.Usagef("--state %s: %v", o.Budget.State, err)
}
