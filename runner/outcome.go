package runner

import (
	"time"

	"github.com/retry-dev/retry/acceptor"
)

// Result is one attempt as the strategy sees it.
type Result struct {
	*acceptor.Attempt
	// Stopped is the cause that stopped the attempt before it finished on
	// its own (ErrAttemptTimeout, ErrDeadline, *Interrupt); nil otherwise.
	Stopped error
	// Release drops what the attempt kept (its stdout); the strategy calls
	// it when a later attempt supersedes this one. nil: nothing to release.
	Release func()
	// Exchange is what the attempt exchanged with the other end, for -v,
	// the JSON log and the report (redacted); nil when the source has
	// nothing to say (a command).
	Exchange *Exchange
	// Decided reports that a document of a streamed attempt decided it
	// (Streamer): the source stopped the attempt.
	Decided bool
	// Documents counts the whole JSON documents a streamed attempt's
	// stdout held; its Stdout is the last of them.
	Documents int
	// Warnings are problems of the attempt that do not change its outcome
	// (processes the sweep could not end); the log prints them.
	Warnings []string
}

// End says why a run ended.
type End int

// The ends of a run.
const (
	EndSuccess     End = iota + 1 // a success directive
	EndFailure                    // a failure directive
	EndAttempts                   // a retry directive on the last allowed attempt
	EndBucket                     // the retry token bucket could not pay for a retry
	EndDeadline                   // the --max-time budget ran out
	EndInterrupted                // retry received a signal
	// EndScheduled: a retry directive in a resumed run (Strategy.Resume);
	// the retry is left to a later invocation, after the last record's Delay.
	EndScheduled
)

func (e End) String() string {
	switch e {
	case EndSuccess:
		return "success"
	case EndFailure:
		return "failure"
	case EndAttempts:
		return "attempts exhausted"
	case EndBucket:
		return "retry token bucket empty"
	case EndDeadline:
		return "time budget exceeded"
	case EndInterrupted:
		return "interrupted"
	case EndScheduled:
		return "retry scheduled"
	}
	return "unknown"
}

// Record is one attempt in an Outcome.
type Record struct {
	Number   int
	Start    time.Time
	Duration time.Duration
	Result   *Result
	Decision acceptor.Decision
	// Delay is the delay planned after this attempt; 0 for the last one.
	Delay time.Duration
	// RetryAfter is the hint that raised Delay, if any, or the hint that
	// ended the run because it would end past the deadline (Delay 0).
	RetryAfter time.Duration
	// Retried reports that another attempt follows this one (after Delay).
	Retried bool
	// Streak counts the successful attempts in a row that end with this
	// one, when Strategy.Consecutive is above 1: a success directive
	// followed by another attempt has Streak < Consecutive; a retry
	// directive has 0 (the count starts again). 0 when Consecutive ≤ 1.
	Streak int
	// Document is the number, in the attempt's stream, of the JSON
	// document the decision is about (Strategy.Stream); 0 when the
	// attempt's end was evaluated.
	Document int
	// Hook is what the OnRetry hook did after this attempt, before the
	// retry; nil when it did not run.
	Hook *HookResult
}

// Outcome is what a run produced.
type Outcome struct {
	End      End
	Attempts []Record
	Start    time.Time
	Elapsed  time.Duration
	// Err carries detail for some ends: the *bucket.EmptyError for
	// EndBucket, the *Interrupt for EndInterrupted.
	Err error
	// Next is when the retry of EndScheduled is due: the time its delay
	// was planned at plus the delay.
	Next time.Time

	// held is 1 + the index in Attempts of a superseded attempt whose
	// stdout is still kept (Strategy.KeepWhole); 0 for none.
	held int
}

// Whole returns, when the last attempt was stopped before it finished (by
// the deadline or a signal) and Strategy.KeepWhole kept the attempt before
// it, that attempt: the last one that ended whole, its stdout not yet
// released. Otherwise nil. The caller releases it as it releases Last.
func (o *Outcome) Whole() *Record {
	if o.held == 0 || o.held > len(o.Attempts) {
		return nil
	}
	return &o.Attempts[o.held-1]
}

// forget drops what a superseded attempt kept for its classification: its
// stdout (Release), its output windows and response headers. The record
// keeps what logs and the report show, so memory stays flat in the number
// of attempts.
//
// keep bytes of the end of each window are kept, copied.
func (r *Record) forget(keep int) {
	res := r.Result
	// The windows may share memory with what Release frees: copy first.
	if a := res.Attempt; a != nil {
		a.StdoutTail, a.StderrTail = lastBytes(a.StdoutTail, keep), lastBytes(a.StderrTail, keep)
		a.Stdout, a.Header = nil, nil
	}
	if res.Release != nil {
		res.Release()
		res.Release = nil
	}
}

// lastBytes returns a copy of the last n bytes of b; nil for none.
func lastBytes(b []byte, n int) []byte {
	if n <= 0 || len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b[max(len(b)-n, 0):]...)
}

// Last returns the last attempt's record, or nil when no attempt ran.
func (o *Outcome) Last() *Record {
	if len(o.Attempts) == 0 {
		return nil
	}
	return &o.Attempts[len(o.Attempts)-1]
}
