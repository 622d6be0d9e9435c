package cmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/durable"
)

// stateTime is how times of a durable sequence are written: UTC, to the
// millisecond.
const stateTime = "2006-01-02T15:04:05.000Z07:00"

// identity returns the hash that ties a state file to a command line: the
// subcommand (run or wait), what an attempt does — the command as it runs
// (argv after splitting; the shell, -c and the string) or the HTTP call
// (method, URL, headers and --data as given, --idempotent) — and how it is
// classified (the acceptors in command-line order, --error-pattern,
// --input, --waiter-file and --waiter). Budget, delay, output and bucket
// flags (-n, --max-time, --attempt-timeout, --delay, --backoff, --schedule,
// --jitter, --mode, --scope, --report, -q, …) are not part of it: changing
// them tunes the running sequence, from its next attempt, instead of
// starting a new one. Values from RETRY_* variables count as flags do.
func identity(o *Options, p *plan) string {
	id := map[string]any{"subcommand": o.name()}
	if p.http {
		id["http"] = map[string]any{"method": p.describe[0], "url": o.URL, "headers": o.Headers,
			"data": o.Data, "data_given": o.given("data"), "idempotent": o.Idempotent}
	} else {
		id["argv"] = p.describe
	}
	acc := make([]string, len(o.Acceptors.specs))
	for i, s := range o.Acceptors.specs {
		acc[i] = "--" + s.flag + "=" + s.value
	}
	id["acceptors"] = acc
	id["error_pattern"] = o.ErrorPattern
	id["input"] = o.Input
	id["waiter"] = []string{o.WaiterFile, o.Waiter}
	b, _ := json.Marshal(id) // maps marshal with sorted keys: a stable encoding
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// durableConfig is what this invocation says about the sequence.
func durableConfig(o *Options, p *plan) durable.Config {
	unfinished := 128 + 9 // the attempt died with retry: SIGKILL (PR_SET_DEATHSIG)
	switch {
	case o.Wait:
		unfinished = exitTimeout
	case p.http:
		unfinished = exitFailure
	}
	return durable.Config{
		Identity:    identity(o, p),
		Command:     p.describe,
		MaxAttempts: p.strategy.MaxAttempts,
		MaxTime:     p.strategy.MaxTime,
		FinalPoll:   p.strategy.FinalGrace > 0,
		Backoff:     p.strategy.Backoff,
		Rand:        p.strategy.Rand,
		Exits:       durable.Exits{Deadline: exitTimeout, Unfinished: unfinished},
	}
}

// runDurable makes at most one attempt of the sequence kept in --state,
// never sleeping: the file is locked for the whole invocation; the attempt
// is recorded as started before it starts; the outcome schedules the next
// attempt (exit 75), clears the state (success) or ends the sequence, which
// later invocations then repeat without running anything.
func runDurable(ctx context.Context, o *Options, p *plan) error {
	log := newLogger(o, p)
	log.state = o.State
	cfg := durableConfig(o, p)

	if err := durable.MakeDir(o.State); err != nil {
		return stateError(o, log, err)
	}
	fl, err := durable.Lock(o.State)
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
		log.event("new_sequence", fmt.Sprintf("--state %s was made for another command line (%s); starting a new sequence", o.State, strings.Join(st.Command, " ")),
			map[string]any{"previous_command": st.Command, "previous_status": st.Status})
		st = nil
	}
	if st == nil {
		st, dirty = durable.New(cfg), true
	}
	if st.Recover(cfg) {
		dirty = true
		log.event("unfinished", fmt.Sprintf("attempt %d did not finish (retry was killed or crashed); it counts", st.Attempts),
			map[string]any{"attempt": st.Attempts})
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
			log.event("not_due", fmt.Sprintf("not due yet: attempt %s is due at %s, in %s; nothing run", attemptOf(st.Attempts+1, cfg.MaxAttempts), due.UTC().Format(stateTime), formatDuration(due.Sub(now))),
				map[string]any{"attempt": st.Attempts + 1, "due": due.UTC().Format(time.RFC3339Nano), "due_in_ms": due.Sub(now).Milliseconds()})
			return &exitError{code: exitTempFail}
		}
		log.event("ended", fmt.Sprintf("%s: %s (%s; nothing run: retry state reset %s starts a new sequence)", st.Status, st.Reason, plural(st.Attempts, "attempt"), o.State),
			map[string]any{"status": st.Status, "reason": st.Reason, "attempts": st.Attempts, "exit_code": st.Exit})
		return exitFor(st.Exit)
	}

	previous := st.Previous()
	n := st.Begin(now, cfg, os.Getpid())
	if err := fl.Write(st); err != nil {
		return stateError(o, log, err)
	}
	p.strategy.Resume = &runner.Resume{Attempt: n, Previous: previous, Start: st.Started}
	out, code := execute(ctx, o, p, log)

	last := out.Last()
	var entry durable.Entry
	if last != nil {
		entry = durable.EntryOf(last, resultText(last))
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
			log.warn("--state %s: the sequence succeeded, but its state cannot be removed: %v", o.State, err)
		}
	} else if err := fl.Write(st); err != nil {
		log.warn("--state %s: the outcome of attempt %d cannot be recorded: %v", o.State, n, err)
	}
	if end == durable.Stopped && st.Status.Terminal() {
		code = st.Exit
	}
	writeReportOrWarn(o, p, out, code, log)
	return exitFor(code)
}

// durableEnd says how out ends this invocation, and why, in one line.
func durableEnd(o *Options, p *plan, out *runner.Outcome, code int) (durable.End, string) {
	last := out.Last()
	what := ""
	if last != nil {
		what = fmt.Sprintf("attempt %d: %s: %s", last.Number, resultText(last), last.Decision.Directive)
		if last.Decision.Directive != 0 {
			what += " [" + decidedBy(last.Decision) + "]"
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
		if p.strategy.MaxTime > 0 {
			msg += " (--max-time " + formatDuration(p.strategy.MaxTime) + " since the first attempt)"
		}
		if what != "" {
			msg += "; last " + what
		}
		return durable.GaveUp, msg
	}
	return durable.GaveUp, fmt.Sprintf("%v; last %s", out.Err, what)
}

// attemptCount is how many attempts out counts: the number of its last
// attempt, which with --state is the sequence's count across invocations.
func attemptCount(out *runner.Outcome) int {
	if last := out.Last(); last != nil {
		return last.Number
	}
	return 0
}

// attemptOf names attempt n of max: "3/5", or "3" when unlimited.
func attemptOf(n, max int) string {
	if max > 0 {
		return fmt.Sprintf("%d/%d", n, max)
	}
	return fmt.Sprint(n)
}

// stateError maps what Lock, Read and Write return: busy is exit 75 at
// once; anything else is retry's own error, nothing run (125).
func stateError(o *Options, log *logger, err error) error {
	var corrupt *durable.CorruptError
	var refused *durable.RefusedError
	switch {
	case errors.Is(err, durable.ErrBusy):
		log.event("busy", fmt.Sprintf("--state %s: busy: another retry is making an attempt of this sequence; nothing run", o.State), nil)
		return &exitError{code: exitTempFail}
	case errors.As(err, &corrupt):
		return usageError("--state %s: %v; nothing run: look at it, then retry state reset %s starts a new sequence", o.State, err, o.State)
	case errors.As(err, &refused):
		return usageError("--state %v", err)
	}
	return usageError("--state %s: %v", o.State, err)
}
