// Package runner holds the strategy loop (attempt → acceptors → directive →
// token bucket → backoff → sleep), the outcome it reports, and the Source
// interface through which it runs attempts. The sources themselves live in
// subpackages that import runner: runner/command (a process per attempt),
// runner/request (an HTTP request per attempt) and runner/tcp (a TCP
// connect); runner knows none of them. It imports acceptor, backoff and
// bucket.
package runner

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/bucket"
)

// Causes of a stopped attempt or run, as context.Cause reports them.
var (
	// ErrDeadline: the --max-time budget ran out.
	ErrDeadline = errors.New("time budget exceeded")
	// ErrAttemptTimeout: the attempt ran past --attempt-timeout.
	ErrAttemptTimeout = errors.New("attempt timed out")
)

// Interrupt is the cancellation cause when retry itself received a signal.
// Sources forward Signal to the attempt.
type Interrupt struct{ Signal syscall.Signal }

func (i *Interrupt) Error() string { return "interrupted by " + SignalName(i.Signal) }

// Source runs attempts.
type Source interface {
	// Attempt runs attempt n (1-based) of at most max (0: unlimited). It
	// stops the attempt when ctx is done; context.Cause(ctx) tells why
	// (ErrAttemptTimeout, ErrDeadline, *Interrupt) and Result.Stopped
	// records it. It always returns a Result.
	Attempt(ctx context.Context, n, max int) *Result
}

// SourceFunc adapts a function to a Source.
type SourceFunc func(ctx context.Context, n, max int) *Result

// Attempt calls f.
func (f SourceFunc) Attempt(ctx context.Context, n, max int) *Result { return f(ctx, n, max) }

// Strategy is the retry loop, shared by retry run and retry
// wait. The zero value is not useful: Chain and Backoff are required.
type Strategy struct {
	// MaxAttempts bounds the attempts, the first included; 0 is unlimited.
	MaxAttempts int
	// MaxTime is the budget for the whole run; 0 is none.
	MaxTime time.Duration
	// AttemptTimeout bounds each attempt; 0 is none.
	AttemptTimeout time.Duration
	// StopGrace is the most a source takes to end an attempt it was told to
	// stop (the command source's --kill-after, its grace between SIGTERM
	// and SIGKILL); 0 for a source that stops at once. The grace comes out
	// of MaxTime: the deadline stops an attempt StopGrace before it (or a
	// tenth of the attempt's time to it before it, when that is less), and
	// the attempt's context says by when the source must have ended it
	// (StopBy: the deadline), so that the run never ends past MaxTime.
	StopGrace time.Duration

	Chain *acceptor.Chain
	// Backoff computes delays; ThrottleBackoff those after throttling
	// (nil: Backoff).
	Backoff         backoff.Backoff
	ThrottleBackoff backoff.Backoff
	// MaxRetryAfter caps a server's retry-after hint; 0 ignores hints.
	MaxRetryAfter time.Duration

	// Bucket pays for retries; nil is a no-op bucket.
	Bucket bucket.Bucket
	// WaitForRefill: when the bucket cannot pay for a retry, wait for its
	// refill (within MaxTime) instead of ending the run (--when-empty wait).
	WaitForRefill bool
	// Limiter, when set, paces every attempt (adaptive mode).
	Limiter bucket.Limiter

	// Now and Sleep are the clock; nil means time.Now and bucket.Sleep.
	// Sleep returns ctx's cause if ctx is done first.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand is the randomness for jitter; required when a backoff jitters.
	Rand backoff.Rand

	// Consecutive is how many successful attempts in a row end the run in
	// success (--consecutive); a retry directive in between starts the count
	// again. 0 and 1: the first success ends the run. A success that is not
	// yet the Consecutive-th in a row is followed by another attempt after
	// the backoff's delay, as a retry is, but pays no retry token: the run
	// has not failed.
	Consecutive int

	// OnRetry, when set, runs before every retry (--on-retry), after the
	// delay, bounded by AttemptTimeout and the deadline like an attempt; prev
	// is the attempt being retried and n the number of the retry. Its
	// failure is reported (EventHook) and the retry starts anyway; a signal
	// or the deadline during the hook ends the run.
	OnRetry func(ctx context.Context, prev *Record, n int) *HookResult

	// Observe, when set, receives events as they happen.
	Observe func(Event)

	// KeepTail is how many of the last bytes of each output window a
	// superseded attempt keeps (a copy) once it is forgotten, for a report;
	// 0 keeps none, so that memory stays flat in the number of attempts.
	KeepTail int

	// KeepWhole keeps a superseded attempt's stdout until the next attempt
	// ends whole, instead of releasing it before the delay: when the
	// deadline or a signal stops an attempt midway, the last whole one is
	// still there (Outcome.Whole) for a poller to write the last state it
	// saw (retry wait) rather than the stopped attempt's empty or partial
	// output. At most two attempts' stdout are held at once.
	KeepWhole bool

	// Stream evaluates the acceptors on each JSON document a Streamer
	// source's attempt streams, as it comes (retry wait --watch); a source
	// that is not a Streamer runs its attempts as without it.
	Stream bool

	// Resume, when set, makes Run one step of a sequence that lives across
	// processes (retry --state): see Resume.
	Resume *Resume
}

// Resume makes a Run one step of a durable sequence: it makes the single
// attempt number Attempt, never sleeps, and instead of sleeping before a
// retry it ends with EndScheduled, the planned delay in the last record.
// The adaptive limiter is updated but never waited for. The deadline of
// MaxTime counts from Start, when the sequence's first attempt started,
// and the Outcome's Start is Start, so its Elapsed covers the sequence.
type Resume struct {
	// Attempt is the sequence's number of the attempt to make (1-based;
	// values below 1 count as 1). MaxAttempts and the backoff see it.
	Attempt int
	// Previous is the delay planned before Attempt (0 for the first).
	Previous time.Duration
	// Start is when the sequence's first attempt started; the zero time
	// means now (a new sequence).
	Start time.Time
}

func (s *Strategy) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Strategy) sleep(ctx context.Context, d time.Duration) error {
	if s.Sleep != nil {
		return s.Sleep(ctx, d)
	}
	return bucket.Sleep(ctx, d)
}

// observe reports e, with the strategy's limits.
func (s *Strategy) observe(e Event) {
	if s.Observe != nil {
		e.MaxAttempts, e.Consecutive = s.MaxAttempts, s.Consecutive
		s.Observe(e)
	}
}

// Run runs attempts from src until a terminal directive, the attempt limit,
// an empty bucket, the deadline or ctx's cancellation (an *Interrupt cause
// ends the run as interrupted). It always returns an Outcome; the last
// attempt's stdout is not released. Every other attempt is forgotten (its
// stdout released, its output windows dropped) once it has been observed,
// before the next attempt starts, so memory stays flat in the number of
// attempts.
func (s *Strategy) Run(ctx context.Context, src Source) *Outcome {
	out := &Outcome{Start: s.now()}
	first, previous := 1, time.Duration(0)
	if r := s.Resume; r != nil {
		first, previous = max(r.Attempt, 1), max(r.Previous, 0)
		if !r.Start.IsZero() {
			out.Start = r.Start
		}
	}
	// The one exit: settle the token the run holds, report the last
	// attempt if that is still due, then the end.
	e := s.loop(ctx, src, out, first, previous)
	if w := out.Whole(); w != nil {
		if last := out.Last(); last == w || last.Result.Stopped == nil || errors.Is(last.Result.Stopped, ErrAttemptTimeout) || last.Result.Documents > 0 {
			// The last attempt ended whole, or streamed a whole
			// document before it was stopped: it is the output.
			w.forget(s.KeepTail)
			out.held = 0
		}
	}
	switch e.settle {
	case settleSuccess:
		e.token.NotifySuccess()
	case settleFailure:
		e.token.NotifyFailure()
	case settleCancel:
		e.token.Cancel()
	}
	out.End, out.Err, out.Next = e.end, e.err, e.next
	if e.report != nil {
		s.observe(Event{Kind: EventAttemptEnd, Record: e.report, Time: s.now()})
	}
	out.Elapsed = s.now().Sub(out.Start)
	s.observe(Event{Kind: EventEnd, Outcome: out, Time: s.now()})
	return out
}

// settle is what becomes of the token a run holds when it ends.
type settle int

const (
	// settleNone: no token was acquired, or the token pays for a retry a
	// later invocation makes (EndScheduled).
	settleNone settle = iota
	// settleSuccess: NotifySuccess, the run succeeded.
	settleSuccess
	// settleFailure: NotifyFailure, the run ended without success after
	// its last attempt.
	settleFailure
	// settleCancel: Cancel, the retry the token paid for does not run (the
	// run ended while waiting for it).
	settleCancel
)

// ending is how a run ends, as loop computes it and Run carries it out.
type ending struct {
	end  End
	err  error     // Outcome.Err
	next time.Time // Outcome.Next
	// token and settle: the token the run holds and what becomes of it.
	token  bucket.Token
	settle settle
	// report is the attempt whose EventAttemptEnd is still due; nil when it
	// was reported already or no attempt ran.
	report *Record
}

// loop runs the attempts of Run, from attempt first with previous the
// delay planned before it, appending their records to out, and returns how
// the run ends. It reports every attempt's end except the one it returns
// in ending.report, and settles every token except the one it returns.
func (s *Strategy) loop(ctx context.Context, src Source, out *Outcome, first int, previous time.Duration) ending {
	var deadline time.Time
	if s.MaxTime > 0 {
		deadline = out.Start.Add(s.MaxTime)
	}
	bkt := s.Bucket
	if bkt == nil {
		bkt = bucket.NoOp{}
	}
	token, err := bkt.Acquire(ctx)
	// stop ends the run with end and err; how says what becomes of the
	// token held, report is the attempt still to report (or nil).
	stop := func(how settle, report *Record, end End, err error) ending {
		return ending{end: end, err: err, token: token, settle: how, report: report}
	}
	// stopOn ends the run on the error that stopped it (endFor).
	stopOn := func(how settle, report *Record, cause error) ending {
		end, err := s.endFor(ctx, cause)
		return stop(how, report, end, err)
	}
	if err != nil {
		return stopOn(settleNone, nil, err)
	}
	streak := 0 // successes in a row (Consecutive)
	for n := first; ; n++ {
		if s.Limiter != nil && s.Resume == nil {
			if err := s.waitLimiter(ctx, deadline); err != nil {
				// The retry paid for does not run: its cost comes back.
				return stopOn(settleCancel, nil, err)
			}
		}
		rec := s.attempt(ctx, src, n, deadline)
		out.Attempts = append(out.Attempts, rec)
		r := &out.Attempts[len(out.Attempts)-1]
		if s.Limiter != nil {
			s.Limiter.Update(r.Decision.Directive.IsThrottle())
		}
		if cause := r.Result.Stopped; cause != nil && !errors.Is(cause, ErrAttemptTimeout) {
			// Stopped by the deadline or a signal: nothing to evaluate.
			// A held attempt stays, for Outcome.Whole.
			return stopOn(settleFailure, r, cause)
		}
		if w := out.Whole(); w != nil {
			w.forget(s.KeepTail) // this attempt ended whole: it supersedes the held one
			out.held = 0
		}
		d := r.Decision.Directive
		again := false // a success, but not yet Consecutive in a row
		if s.Consecutive > 1 {
			switch {
			case d == acceptor.Succeed:
				streak++
				again = streak < s.Consecutive
			case d.IsRetry():
				streak = 0
			}
			r.Streak = streak
		}
		switch {
		case d == acceptor.Succeed && !again:
			return stop(settleSuccess, r, EndSuccess, nil)
		case d == acceptor.Fail:
			return stop(settleFailure, r, EndFailure, nil)
		case ctx.Err() != nil:
			return stopOn(settleFailure, r, context.Cause(ctx))
		case s.MaxAttempts > 0 && n >= s.MaxAttempts:
			return stop(settleFailure, r, EndAttempts, nil)
		}
		// The order of seed 000: the delay first, then the token, and only
		// for a retry that fits the deadline, so that a run ending on its
		// budget (or on a retry-after hint past it) pays nothing.
		plannedAt := s.now()
		delay, hint, end := s.plan(r, previous, deadline, plannedAt)
		if end != 0 {
			r.RetryAfter = hint // the log and the report say why the run ended
			return stop(settleFailure, r, end, nil)
		}
		planned, throttle := delay, d.IsThrottle()
		var next bucket.Token
		if again {
			// The run has not failed: settle this token and take a fresh
			// one for the next attempt, without a retry's cost.
			token.NotifySuccess()
			next, err = bkt.Acquire(ctx)
		} else {
			next, err = token.ScheduleRetry(ctx, throttle)
		}
		var empty *bucket.EmptyError
		waited := false
		if errors.As(err, &empty) && s.WaitForRefill && s.Resume == nil && s.refillFits(empty, delay, deadline) {
			// --when-empty wait: the retry comes once the bucket has
			// refilled and the delay has passed, whichever is later.
			r.Delay, r.RetryAfter, r.Retried = delay, hint, true
			s.observe(Event{Kind: EventAttemptEnd, Record: r, Time: s.now()})
			waited = true
			start := s.now()
			for errors.As(err, &empty) {
				left := max(delay-s.now().Sub(start), 0)
				if !s.refillFits(empty, left, deadline) {
					break // the refill comes too late: end as with fail
				}
				wait := max(empty.Refill, bucket.RefillInterval/10)
				s.observe(Event{Kind: EventBucketWait, Record: r, Wait: wait, Empty: empty, Time: s.now()})
				if serr := s.sleep(ctx, wait); serr != nil {
					r.Retried = false
					return stopOn(settleFailure, nil, serr)
				}
				next, err = token.ScheduleRetry(ctx, throttle)
			}
			delay = max(delay-s.now().Sub(start), 0)
		}
		if err != nil {
			if waited { // reported as retried: it is not
				r.Retried = false
				return stopOn(settleFailure, nil, err)
			}
			return stopOn(settleFailure, r, err)
		}
		token = next
		if !waited {
			r.Delay, r.RetryAfter, r.Retried = delay, hint, true
			s.observe(Event{Kind: EventAttemptEnd, Record: r, Time: s.now()})
		}
		if s.Resume != nil {
			// The retry's token was paid; a later invocation makes it.
			e := stop(settleNone, nil, EndScheduled, nil)
			e.next = plannedAt.Add(delay)
			return e
		}
		// Superseded: the next attempt will be the last one so far. Drop
		// what this one kept before the next one runs, or hold it until the
		// next one ends whole (KeepWhole).
		if s.KeepWhole {
			out.held = len(out.Attempts)
		} else {
			r.forget(s.KeepTail)
		}
		if err := s.sleep(ctx, delay); err != nil {
			// The retry this token paid for will not run: give it back.
			return stopOn(settleCancel, nil, err)
		}
		previous = planned
		if s.OnRetry != nil && !again {
			if err := s.runHook(ctx, r, n+1, deadline); err != nil {
				return stopOn(settleCancel, nil, err) // the retry it paid for does not run
			}
		}
	}
}

// runHook runs the OnRetry hook before retry n, bounded like an attempt,
// and reports it. It returns the cause when the deadline or a signal came
// during the hook: then no retry starts.
func (s *Strategy) runHook(ctx context.Context, prev *Record, n int, deadline time.Time) error {
	start := s.now()
	if !deadline.IsZero() && !start.Before(deadline) {
		return ErrDeadline
	}
	hctx, cancel := s.attemptContext(ctx, start, deadline)
	res := s.OnRetry(hctx, prev, n)
	cause := context.Cause(hctx)
	cancel()
	if res == nil {
		res = &HookResult{}
	}
	res.Duration = s.now().Sub(start)
	prev.Hook = res
	s.observe(Event{Kind: EventHook, Record: prev, Attempt: n, Time: s.now(), Hook: res})
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if errors.Is(cause, ErrDeadline) {
		return ErrDeadline
	}
	return nil
}

// refillFits reports whether a retry that waits for the bucket's refill
// (and for delay) still starts within the deadline.
func (s *Strategy) refillFits(empty *bucket.EmptyError, delay time.Duration, deadline time.Time) bool {
	if deadline.IsZero() {
		return true
	}
	at := s.now().Add(max(empty.Refill, delay))
	return at.Before(deadline)
}

// attempt runs attempt n under the deadline and the attempt timeout and
// evaluates it.
func (s *Strategy) attempt(ctx context.Context, src Source, n int, deadline time.Time) Record {
	start := s.now()
	actx, cancel := s.attemptContext(ctx, start, deadline)
	defer cancel()
	s.observe(Event{Kind: EventAttemptStart, Attempt: n, Time: start})
	if st, ok := src.(Streamer); ok && s.Stream {
		return s.streamAttempt(actx, st, n, start)
	}
	return s.evaluate(n, start, src.Attempt(actx, n, s.MaxAttempts))
}

// evaluate records attempt n, started at start, whose source returned res,
// and evaluates it unless the deadline or a signal stopped it.
func (s *Strategy) evaluate(n int, start time.Time, res *Result) Record {
	if res.Attempt == nil {
		res.Attempt = &acceptor.Attempt{}
	}
	res.Number = n
	if errors.Is(res.Stopped, ErrAttemptTimeout) {
		res.TimedOut = true
	}
	rec := Record{Number: n, Start: start, Duration: s.now().Sub(start), Result: res}
	if res.Stopped == nil || errors.Is(res.Stopped, ErrAttemptTimeout) {
		rec.Decision = s.Chain.Evaluate(res.Attempt)
	}
	if res.RetryUnsafe && rec.Decision.Directive.IsRetry() {
		rec.Decision.Directive = acceptor.Fail
		rec.Decision.Source, rec.Decision.Acceptor = acceptor.FromRetrySafety, 0
		rec.Decision.Name = acceptor.FromRetrySafety.String()
		rec.Decision.Value = "not retried: the request may have been sent and its method is not idempotent (--idempotent retries it)"
	}
	return rec
}

// attemptContext bounds one attempt: by the deadline (with ErrDeadline as
// cause), so that no attempt runs past the budget (the AWS SDK waiters bound
// the whole wait the same way), and by the attempt timeout
// (ErrAttemptTimeout). With a StopGrace the deadline's stop comes early
// enough for the grace to end by the deadline (stopAt), and the context
// carries the deadline for the source (StopBy).
func (s *Strategy) attemptContext(ctx context.Context, start, deadline time.Time) (context.Context, context.CancelFunc) {
	var cancels []context.CancelFunc
	if !deadline.IsZero() {
		var c context.CancelFunc
		if s.StopGrace > 0 {
			ctx = context.WithValue(ctx, stopByKey{}, deadline)
		}
		ctx, c = context.WithDeadlineCause(ctx, stopAt(start, deadline, s.StopGrace), ErrDeadline)
		cancels = append(cancels, c)
	}
	if s.AttemptTimeout > 0 {
		var c context.CancelFunc
		ctx, c = context.WithTimeoutCause(ctx, s.AttemptTimeout, ErrAttemptTimeout)
		cancels = append(cancels, c)
	}
	return ctx, func() {
		for i := len(cancels) - 1; i >= 0; i-- {
			cancels[i]()
		}
	}
}

// plan computes the delay after attempt r. It returns a non-zero End when the
// delay cannot be slept: it would end past the deadline, or the server's hint
// does.
func (s *Strategy) plan(r *Record, previous time.Duration, deadline, now time.Time) (delay, hint time.Duration, end End) {
	step := backoff.Step{Attempt: r.Number, Previous: previous}
	if !deadline.IsZero() {
		step.Budgeted, step.Remaining = true, max(deadline.Sub(now), 0)
	}
	b := s.Backoff
	if r.Decision.Directive.IsThrottle() && s.ThrottleBackoff != nil {
		b = s.ThrottleBackoff
	}
	delay = b.Delay(step, s.Rand)
	if ra := r.Result.RetryAfter; ra > 0 && s.MaxRetryAfter > 0 {
		hint = min(ra, s.MaxRetryAfter)
		if !deadline.IsZero() && now.Add(hint).After(deadline) {
			return 0, hint, EndDeadline
		}
		delay = max(delay, hint)
	}
	if !deadline.IsZero() {
		at := now.Add(delay)
		if !at.Before(deadline) { // no attempt starts at or past the deadline
			return 0, hint, EndDeadline
		}
	}
	return delay, hint, 0
}

func (s *Strategy) waitLimiter(ctx context.Context, deadline time.Time) error {
	if deadline.IsZero() {
		return s.Limiter.Wait(ctx)
	}
	lctx, cancel := context.WithDeadlineCause(ctx, deadline, ErrDeadline)
	defer cancel()
	return s.Limiter.Wait(lctx)
}

// endFor maps the error that stopped a run to its End.
func (s *Strategy) endFor(ctx context.Context, err error) (End, error) {
	var intr *Interrupt
	var empty *bucket.EmptyError
	var late *bucket.LateError
	switch {
	case errors.As(err, &intr):
		return EndInterrupted, intr
	case errors.As(context.Cause(ctx), &intr):
		return EndInterrupted, intr
	case errors.As(err, &empty):
		return EndBucket, empty
	case errors.As(err, &late):
		// The rate limiter's next send comes after the deadline: the run
		// ends now, with what it knows, not at the deadline.
		return EndDeadline, late
	case errors.Is(err, ErrDeadline), errors.Is(err, context.DeadlineExceeded):
		return EndDeadline, nil
	}
	return EndFailure, fmt.Errorf("%w", err)
}

// stopAt is when the deadline stops an attempt that started at start, for a
// source that takes up to grace to end it: grace before the deadline, but
// at most a tenth of the attempt's time to the deadline before it (an
// attempt started 1s before it, with a 5s grace, runs 0.9s and gets 0.1s to
// end). An attempt that obeys SIGTERM ends in milliseconds, so the reserve
// is kept small: it is the poll's own time (a wait's last poll has --delay
// to run by the waiter rule), and only an attempt that ignores SIGTERM needs
// it, which SIGKILL at the deadline ends anyway.
func stopAt(start, deadline time.Time, grace time.Duration) time.Time {
	if grace <= 0 {
		return deadline
	}
	return deadline.Add(-min(grace, max(deadline.Sub(start), 0)/10))
}

type stopByKey struct{}

// StopBy returns the time by which the source must have ended the attempt
// of ctx (its processes killed and reaped) when it is stopped: the run's
// deadline (Strategy.MaxTime), when the strategy has a StopGrace. ok is
// false otherwise: a stop then has the source's whole grace.
func StopBy(ctx context.Context) (by time.Time, ok bool) {
	by, ok = ctx.Value(stopByKey{}).(time.Time)
	return by, ok
}
