// Package durable keeps a retry sequence in a file so that it outlives the
// process that made it (retry --state, seed 001): the attempts made, the
// next due time, the current delay and the last status, as seed 001 keeps
// them in a table. Each invocation of retry makes at most one attempt of the
// sequence: it opens and locks the file (File), asks the State whether an
// attempt is due (State.Check), records the attempt as started before it
// starts (State.Begin), runs it as one step of the strategy loop
// (runner.Resume) and records how it ended (State.Finish).
//
// The State's methods are the transitions; they take the time as an
// argument and do no I/O, so they are tested under testing/synctest with
// exact schedules. File does the I/O: an exclusive lock held for the whole
// invocation, atomic writes, and refusing what is not a private regular file
// of ours.
package durable

import (
	"fmt"
	"time"

	"github.com/retry-dev/retry/backoff"
)

// FormatVersion is the version of the state format this package writes.
// Version 2 names the seed's fields as the seed does (scheduled_at, backoff;
// version 1's next_due, delay) and adds remaining_attempts and max_backoff;
// Decode still reads version 1.
const FormatVersion = 2

// MaxHistory is how many attempts the history keeps: the latest ones. The
// attempt count is kept apart and is never cut short.
const MaxHistory = 100

// Status is where a sequence stands, as stored. "due" is not stored: it is
// a pending sequence whose next due time has passed (State.Shown).
type Status string

// The statuses.
const (
	// Pending: waiting for NextDue (a zero NextDue is due at once).
	Pending Status = "pending"
	// Running: an attempt started and did not finish. Found with the lock
	// free, it means the process that made it died (State.Recover).
	Running Status = "running"
	// GivenUp: attempts exhausted, the time budget ran out, or the retry
	// token bucket was empty. Terminal.
	GivenUp Status = "given up"
	// Failed: a failure directive. Terminal.
	Failed Status = "failed"
)

// Due is the status that State.Shown gives a pending sequence whose next
// attempt is due.
const Due Status = "due"

// Terminal reports whether st ends the sequence: later invocations repeat
// it without running anything.
func (st Status) Terminal() bool { return st == GivenUp || st == Failed }

// State is one retry sequence. Times are wall-clock times (UTC in the file).
// The fields the seed's table keeps are named as it names them:
// scheduled_at, remaining_attempts, backoff and max_backoff.
type State struct {
	Version int `json:"version"`
	// Identity is the hash of the normalised command line the sequence is
	// for (cmd decides what it covers); another one starts a new sequence.
	Identity string `json:"identity"`
	// Command is the command or URL, as logs show it, for people.
	Command []string `json:"command"`
	Status  Status   `json:"status"`
	// NextDue is when the next attempt may start; zero: at once. While an
	// attempt runs, it is when the next one is due should this one never
	// finish (the process died): its start plus the delay planned for it.
	NextDue time.Time `json:"scheduled_at,omitzero"`
	// Remaining is the attempts left (Left) when they are limited; only
	// Encode sets it, and Decode checks it.
	Remaining *int `json:"remaining_attempts,omitempty"`
	// Delay is the delay planned after the latest finished attempt (the
	// backoff's Previous for the next one).
	Delay Duration `json:"backoff"`
	// MaxBackoff is the cap on a delay of the latest invocation (0: none
	// known, as in a state written before it was recorded).
	MaxBackoff Duration `json:"max_backoff"`
	// Attempts is how many attempts were started, unfinished ones included.
	Attempts int `json:"attempts"`
	// MaxAttempts is the attempt limit of the latest invocation; 0 is
	// unlimited.
	MaxAttempts int `json:"max_attempts"`
	// Started is when the first attempt started; --max-time counts from it.
	Started time.Time `json:"started,omitzero"`
	// Deadline is Started plus the --max-time of the latest invocation;
	// zero when there is none.
	Deadline time.Time `json:"deadline,omitzero"`
	// PID is the process running an attempt (Running), for show.
	PID int `json:"pid,omitempty"`
	// Exit is the exit status the sequence ends with if it gives up now: the
	// recorded status once terminal.
	Exit int `json:"exit_status"`
	// Reason says why the sequence ended (terminal) or what the last
	// attempt did.
	Reason string `json:"reason,omitempty"`
	// History is the latest MaxHistory attempts, oldest first.
	History []Entry `json:"history"`
}

// Entry is one attempt in the history.
type Entry struct {
	Attempt  int       `json:"attempt"`
	Start    time.Time `json:"start"`
	Duration Duration  `json:"duration"`
	// Result says what the attempt did: "exit status 1", "HTTP 503",
	// "timed out after 2s", "did not finish".
	Result string `json:"result"`
	// ExitCode is the exit status of a command, -1 in the file when there
	// is none (see HasExitCode); Status the HTTP status of a call (0: none).
	ExitCode int `json:"exit_code"`
	Status   int `json:"http_status,omitempty"`
	// Directive is the directive's name ("success", "failure", "retry
	// (server-side)"), or Unfinished or Interrupted.
	Directive string `json:"directive"`
	// Acceptor is the acceptor that decided, "fallback", or "".
	Acceptor string `json:"acceptor,omitempty"`
	// Delay is the delay planned after this attempt (0: none).
	Delay Duration `json:"delay,omitempty"`
}

// Directives of attempts that have none.
const (
	// Unfinished: the attempt started and its process died before it ended.
	Unfinished = "unfinished"
	// Interrupted: retry received a signal during the attempt.
	Interrupted = "interrupted"
)

// Config is what the current invocation says about the sequence.
type Config struct {
	Identity string
	Command  []string
	// MaxAttempts bounds the attempts, the first included; 0 is unlimited.
	MaxAttempts int
	// MaxTime is the budget of the whole sequence from its first attempt;
	// 0 is none.
	MaxTime time.Duration
	// Backoff and Rand plan the delay after an attempt that never finishes
	// (Begin); nil Backoff plans none. Its cap (backoff.MaxDelay) is the
	// sequence's max backoff.
	Backoff backoff.Backoff
	Rand    backoff.Rand
	// Exits are the exit statuses of the ends the State decides by itself.
	Exits Exits
}

// Exits are the exit statuses of the ends State decides without an attempt
// result; cmd maps them (SPEC "Exit status").
type Exits struct {
	// Deadline: the time budget ran out (124).
	Deadline int
	// Unfinished: the last allowed attempt never finished.
	Unfinished int
}

// New returns a new sequence for c: no attempt made, due at once.
func New(c Config) *State {
	s := &State{Version: FormatVersion, Identity: c.Identity, Command: c.Command, Status: Pending,
		MaxAttempts: c.MaxAttempts, Exit: 0, History: []Entry{}}
	s.configure(c)
	return s
}

// Verdict is what an invocation must do.
type Verdict int

// The verdicts of Check.
const (
	// RunNow: an attempt is due.
	RunNow Verdict = iota + 1
	// NotDue: wait for NextDue; run nothing.
	NotDue
	// Ended: the sequence is over (Status is terminal): repeat Exit and
	// Reason, run nothing.
	Ended
)

// Check applies the current configuration to s at now and says what to do.
// It may end the sequence: when the attempts made reach a lowered limit, or
// when the time budget counted from the first attempt ran out before the
// next attempt (no attempt starts at or past the deadline). A terminal
// sequence stays as it is.
func (s *State) Check(now time.Time, c Config) Verdict {
	if s.Status.Terminal() {
		return Ended
	}
	s.configure(c)
	if c.MaxAttempts > 0 && s.Attempts >= c.MaxAttempts {
		s.end(GivenUp, s.Exit, fmt.Sprintf("max attempts exceeded (%d of %d made)", s.Attempts, c.MaxAttempts))
		return Ended
	}
	if !s.Deadline.IsZero() && !now.Before(s.Deadline) {
		s.end(GivenUp, c.Exits.Deadline, fmt.Sprintf("time budget exceeded (--max-time %s since the first attempt)", c.MaxTime))
		return Ended
	}
	if now.Before(s.NextDue) {
		return NotDue
	}
	return RunNow
}

// configure records the limits of the current invocation.
func (s *State) configure(c Config) {
	s.MaxAttempts = c.MaxAttempts
	s.Command = c.Command
	if c.Backoff != nil {
		if m, ok := backoff.MaxDelay(c.Backoff); ok {
			s.MaxBackoff = Duration(m)
		}
	}
	s.Deadline = time.Time{}
	if c.MaxTime > 0 && !s.Started.IsZero() {
		s.Deadline = s.Started.Add(c.MaxTime)
	}
}

// Recover counts an attempt that started and never finished: its process
// died (kill -9, a crash, a reboot) while the state said Running. Call it
// only with the lock held: then no one else runs the attempt. The attempt
// stays counted; the next is due at the time planned when it started. If it
// was the last allowed attempt, or that time is past the deadline, the
// sequence gives up. Recover reports whether there was such an attempt.
func (s *State) Recover(c Config) bool {
	if s.Status != Running {
		return false
	}
	s.Status, s.PID = Pending, 0
	if n := len(s.History); n > 0 {
		e := &s.History[n-1]
		e.Directive, e.Result = Unfinished, "did not finish (retry was killed or crashed)"
		if !s.NextDue.IsZero() {
			e.Delay = Duration(s.NextDue.Sub(e.Start))
			s.Delay = e.Delay
		}
	}
	s.Exit = c.Exits.Unfinished
	s.Reason = fmt.Sprintf("attempt %d did not finish (retry was killed or crashed)", s.Attempts)
	s.configure(c)
	switch {
	case c.MaxAttempts > 0 && s.Attempts >= c.MaxAttempts:
		s.end(GivenUp, c.Exits.Unfinished, fmt.Sprintf("max attempts exceeded: attempt %d of %d did not finish (retry was killed or crashed)", s.Attempts, c.MaxAttempts))
	case !s.Deadline.IsZero() && s.NextDue.After(s.Deadline):
		s.end(GivenUp, c.Exits.Deadline, fmt.Sprintf("time budget exceeded (--max-time %s since the first attempt): attempt %d did not finish", c.MaxTime, s.Attempts))
	}
	return true
}

// Begin records attempt Attempts+1 as started at now by process pid,
// before it starts, so that it counts even if the process dies. NextDue
// becomes the time the next attempt is due should this one never finish:
// now plus the delay c.Backoff plans after it. It returns the attempt's
// number.
func (s *State) Begin(now time.Time, c Config, pid int) int {
	s.Attempts++
	n := s.Attempts
	if s.Started.IsZero() {
		s.Started = now
	}
	s.configure(c)
	s.Status, s.PID = Running, pid
	s.NextDue = now
	if c.Backoff != nil {
		step := backoff.Step{Attempt: n, Previous: time.Duration(s.Delay)}
		if !s.Deadline.IsZero() {
			step.Budgeted, step.Remaining = true, max(s.Deadline.Sub(now), 0)
		}
		s.NextDue = now.Add(c.Backoff.Delay(step, c.Rand))
	}
	s.History = append(s.History, Entry{Attempt: n, Start: now, ExitCode: noExitCode, Directive: Unfinished, Result: "running"})
	if len(s.History) > MaxHistory {
		s.History = append([]Entry(nil), s.History[len(s.History)-MaxHistory:]...)
	}
	return n
}

// Previous returns the delay planned before the next attempt (the
// backoff's Step.Previous): the one after the latest finished attempt.
func (s *State) Previous() time.Duration { return time.Duration(s.Delay) }

// End is how a finished attempt ends its invocation.
type End int

// The ends Finish knows.
const (
	// Succeeded: a success directive; the sequence is over and its file is
	// removed.
	Succeeded End = iota + 1
	// Scheduled: a retry directive; the next attempt is due Delay after
	// the attempt ended.
	Scheduled
	// Stopped: retry received a signal; the attempt counts, and the next is
	// due when Begin planned it.
	Stopped
	// FailedEnd: a failure directive. Terminal.
	FailedEnd
	// GaveUp: attempts exhausted, time budget or token bucket. Terminal.
	GaveUp
)

// Finish records how the running attempt ended at now: e is the attempt
// (its Attempt number must be the running one's); exit is the exit status
// the sequence ends with (FailedEnd, GaveUp), or would end with if it gave
// up after this attempt (Scheduled, Stopped); reason says why, in one
// line. It reports whether the file must be removed (Succeeded).
func (s *State) Finish(now time.Time, e Entry, end End, exit int, reason string) (remove bool) {
	planned := time.Duration(0) // the delay Begin planned, from its own start time
	if n := len(s.History); n > 0 && s.History[n-1].Attempt == e.Attempt {
		planned = max(s.NextDue.Sub(s.History[n-1].Start), 0)
		s.History[n-1] = e
	}
	s.PID = 0
	s.Exit, s.Reason = exit, reason
	switch end {
	case Succeeded:
		return true
	case Scheduled:
		s.Status = Pending
		s.Delay = e.Delay
		s.NextDue = now.Add(time.Duration(e.Delay))
	case Stopped:
		s.Status = Pending
		if n := len(s.History); n > 0 {
			s.History[n-1].Directive = Interrupted
			s.History[n-1].Delay = Duration(planned)
			s.Delay = s.History[n-1].Delay
		}
		switch {
		case s.MaxAttempts > 0 && s.Attempts >= s.MaxAttempts:
			s.end(GivenUp, exit, fmt.Sprintf("max attempts exceeded: attempt %d of %d was interrupted", s.Attempts, s.MaxAttempts))
		case !s.Deadline.IsZero() && s.NextDue.After(s.Deadline):
			s.end(GivenUp, exit, fmt.Sprintf("time budget exceeded: attempt %d was interrupted", s.Attempts))
		}
	case FailedEnd:
		s.end(Failed, exit, reason)
	case GaveUp:
		s.end(GivenUp, exit, reason)
	}
	return false
}

func (s *State) end(st Status, exit int, reason string) {
	s.Status, s.Exit, s.Reason, s.PID = st, exit, reason, 0
	s.NextDue = time.Time{}
}

// Shown is the status as people see it at now: Due for a pending sequence
// whose next attempt is due, Running only while alive reports the running
// process alive; a Running state whose process is gone shows as what
// Recover will make of it (pending or due, or given up when it was the
// last attempt).
func (s *State) Shown(now time.Time, alive func(pid int) bool) Status {
	st := s.Status
	if st == Running && (s.PID == 0 || alive == nil || !alive(s.PID)) {
		st = Pending
		if s.MaxAttempts > 0 && s.Attempts >= s.MaxAttempts {
			return GivenUp
		}
	}
	if st == Pending && !now.Before(s.NextDue) {
		return Due
	}
	return st
}

// Left returns the attempts left; limited is false when they are
// unlimited (n is then 0).
func (s *State) Left() (n int, limited bool) {
	if s.MaxAttempts == 0 {
		return 0, false
	}
	if s.Status.Terminal() {
		return 0, true
	}
	return max(s.MaxAttempts-s.Attempts, 0), true
}
