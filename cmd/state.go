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
	"github.com/retry-dev/retry/runner/command"
	"github.com/retry-dev/retry/runner/durable"
	"github.com/retry-dev/retry/runner/durable/redisstore"
)

// runDurable makes at most one attempt of the sequence kept in --state,
// never sleeping: the store (a file, or a Redis key) is locked for the
// whole invocation; the attempt is recorded as started before it starts;
// the outcome schedules the next attempt (exit 75), clears the state
// (success) or ends the sequence, which later invocations then repeat
// without running anything.
func runDurable(ctx context.Context, p *plan.Plan, l *logs, proc *process) *runEnd {
	d, err := beginDurable(p, l.log)
	if d == nil {
		r := newRunEnd(p, nil)
		r.before = err
		return r
	}
	defer d.fl.Close()
	r := execute(ctx, p, l, proc, d.resume)
	finishDurable(p, l, d, r)
	return r
}

// durableAttempt is an attempt of a sequence, recorded as started.
type durableAttempt struct {
	fl  durable.Store
	st  *durable.State
	n   int       // the attempt's number
	now time.Time // when it was recorded
	// resume makes the run this attempt of the sequence.
	resume *runner.Resume
}

// beginDurable locks the store and reads the sequence. When an attempt is
// due it records it as started and returns it, holding the lock; otherwise it releases the lock and returns
// nil and why no attempt is made (*notRun, or retry's own error).
func beginDurable(p *plan.Plan, log sinks.Log) (_ *durableAttempt, err error) {
	cfg := plan.DurableConfig(p, stateExits(p))
	name := p.State.Name

	fl, err := openState(p)
	if err != nil {
		return nil, stateError(name, log, err)
	}
	held := false
	defer func() {
		if !held {
			fl.Close()
		}
	}()
	st, err := fl.Read()
	if err != nil {
		return nil, stateError(name, log, err)
	}
	dirty := false
	if st != nil && st.Identity != cfg.Identity {
		log.Event(sinks.StateEvent{Retry: "new_sequence",
			Message:         fmt.Sprintf("--state %s was made for another command line (%s); starting a new sequence", name, strings.Join(st.Command, " ")),
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
				return nil, stateError(name, log, err)
			}
		}
		if verdict == durable.NotDue {
			due := st.NextDue
			dueIn := due.Sub(now).Milliseconds()
			log.Event(sinks.StateEvent{Retry: "not_due", Attempt: st.Attempts + 1, Due: due.UTC().Format(time.RFC3339Nano), DueInMS: &dueIn,
				Message: fmt.Sprintf("not due yet: attempt %s is due at %s, in %s; nothing run", human.AttemptOf(st.Attempts+1, cfg.MaxAttempts), due.UTC().Format(human.StateTime), human.Duration(due.Sub(now)))})
			return nil, &notRun{}
		}
		exitCode := st.Exit
		log.Event(sinks.StateEvent{Retry: "ended", Status: string(st.Status), Reason: st.Reason, Attempts: st.Attempts, ExitCode: &exitCode,
			Message: fmt.Sprintf("%s: %s (%s; nothing run: retry state reset %s starts a new sequence)", st.Status, st.Reason, human.Plural(st.Attempts, "attempt"), name)})
		return nil, &notRun{ended: true, status: st.Exit}
	}

	previous := st.Previous()
	n := st.Begin(now, cfg, os.Getpid())
	if err := fl.Write(st); err != nil {
		return nil, stateError(name, log, err)
	}
	held = true
	return &durableAttempt{fl: fl, st: st, n: n, now: now,
		resume: &runner.Resume{Attempt: n, Previous: previous, Start: st.Started}}, nil
}

// finishDurable records how the attempt d ended (r), and the status the
// sequence ends with if it gives up now; r says when it could not be
// recorded.
func finishDurable(p *plan.Plan, l *logs, d *durableAttempt, r *runEnd) {
	fl, st, n, now, name, out := d.fl, d.st, d.n, d.now, p.State.Name, r.out
	last := out.Last()
	var entry durable.Entry
	if last != nil {
		entry = durable.EntryOf(last, human.Result(last))
	} else { // the bucket or a signal stopped it before the attempt
		entry = durable.NotStarted(n, now)
	}
	end, reason := durableEnd(p, out)
	giveUp := *r // the status if this attempt is the sequence's last
	if end == durable.Scheduled {
		giveUp.end = runner.EndAttempts
	}
	ended := time.Now()
	if end == durable.Scheduled {
		ended = out.Next.Add(-time.Duration(entry.Delay)) // when the delay was planned
	}
	var recErr error
	succeeded := st.Finish(ended, entry, end, exitStatus(&giveUp), reason)
	if succeeded {
		recErr = fl.Remove()
	} else {
		recErr = fl.Write(st)
	}
	if recErr != nil {
		what := fmt.Sprintf("the outcome of attempt %d cannot be recorded", n)
		if succeeded {
			what = "the sequence succeeded, but its state cannot be removed"
		}
		if un, lost := unrecorded(recErr); un || lost {
			// What the store holds says the attempt is running: the
			// next invocation counts it as unfinished and goes on.
			l.lines.Warn("--state %s: %v; %s: the next invocation counts it as unfinished", name, recErr, what)
			r.unrecorded = true
		} else {
			l.lines.Warn("--state %s: %s: %v", name, what, recErr)
		}
	}
}

// stateExits are the exit statuses of the ends a sequence's state decides
// by itself, without an attempt: its time budget ran out, or its attempt
// did not finish (retry was killed with it).
func stateExits(p *plan.Plan) durable.Exits {
	deadline, unfinished := newRunEnd(p, nil), newRunEnd(p, nil)
	deadline.end = runner.EndDeadline
	unfinished.end, unfinished.unfinished = runner.EndAttempts, true
	return durable.Exits{Deadline: exitStatus(deadline), Unfinished: exitStatus(unfinished)}
}

// openState locks the sequence's store: the file (whose first write makes
// its missing directories), or the Redis key.
func openState(p *plan.Plan) (durable.Store, error) {
	if k := p.State.Key; k != nil {
		// The lease: the attempt's processes are gone by the time the
		// lock expires, even when retry is stopped (SIGSTOP) or cannot
		// renew it — the supervisor, a process of its own, ends them.
		return redisstore.Lock(k, redisstore.Options{TTL: p.State.LockTTL, Renewed: p.State.Lease, KillAfter: p.State.KillAfter, Lease: func(end time.Time) {
			if end.IsZero() {
				command.FenceRun(0)
				return
			}
			command.FenceRun(max(time.Until(end), time.Nanosecond))
		}})
	}
	return durable.Lock(p.State.Name) // a file's name is its path
}

// unrecorded reports whether err is a store that could not be reached, or
// a lock that expired: an outcome the store did not take.
func unrecorded(err error) (unreachable, lost bool) {
	var un *redisstore.UnreachableError
	var lo *redisstore.LostError
	return errors.As(err, &un), errors.As(err, &lo)
}

// durableEnd says how out ends this invocation, and why, in one line.
func durableEnd(p *plan.Plan, out *runner.Outcome) (durable.End, string) {
	last := out.Last()
	what := ""
	if last != nil {
		// The directive as a string: fmt would look its methods up.
		what = fmt.Sprintf("attempt %d: %s: %s", last.Number, human.Result(last), last.Decision.Directive.String())
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

// stateError maps what opening, reading and writing the store return
// before the attempt: busy, an unreachable store or a lost lock is exit 75
// at once, nothing run (the next invocation tries again); anything else is
// retry's own error, nothing run (125).
func stateError(name string, log sinks.Log, err error) error {
	var corrupt *durable.CorruptError
	var refused *durable.RefusedError
	var fenced *redisstore.FencedError
	switch un, lost := unrecorded(err); {
	case errors.Is(err, durable.ErrBusy):
		log.Event(sinks.StateEvent{Retry: "busy", Message: fmt.Sprintf("--state %s: busy: another retry is making an attempt of this sequence; nothing run", name)})
		return &notRun{}
	case errors.As(err, &fenced):
		log.Event(sinks.StateEvent{Retry: "busy", Message: fmt.Sprintf("--state %s: busy: %v; nothing run: it counts as unfinished once that has passed", name, err)})
		return &notRun{}
	case un || lost:
		log.Event(sinks.StateEvent{Retry: "unreachable", Message: fmt.Sprintf("--state %s: %v; nothing run: the next invocation tries again", name, err)})
		return &notRun{}
	case errors.As(err, &corrupt):
		return exit.Usagef("--state %s: %v; nothing run: look at it, then retry state reset %s starts a new sequence", name, err, name)
	case errors.As(err, &refused):
		return exit.Usagef("--state %v", err)
	}
	return exit.Usagef("--state %s: %v", name, err)
}
