package runner

import (
	"time"

	"github.com/retry-dev/retry/bucket"
)

// Event is something the strategy reports as it goes, for logs and the live
// status line.
type Event struct {
	Kind EventKind
	// Record is the attempt the event is about (EventAttemptEnd), or the
	// document (EventDocument).
	Record *Record
	// Attempt is the number of the attempt starting (EventAttemptStart).
	Attempt int
	// MaxAttempts and Consecutive are the strategy's, on every event, so
	// that a log can say "attempt 2/5" and "(1/3 in a row)" from the
	// events alone.
	MaxAttempts int
	Consecutive int
	// Time is when the event happened, by the strategy's clock.
	Time    time.Time
	Outcome *Outcome // EventEnd
	// Wait is how long the run waits for the token bucket's refill and
	// Empty what the bucket said (EventBucketWait).
	Wait  time.Duration
	Empty *bucket.EmptyError
	// Hook is what the --on-retry hook did (EventHook).
	Hook *HookResult
}

// EventKind tells events apart.
type EventKind int

// The event kinds.
const (
	EventAttemptStart EventKind = iota + 1
	EventAttemptEnd
	EventEnd
	// EventBucketWait: the token bucket cannot pay for the next retry yet
	// and the run waits for its refill (WaitForRefill).
	EventBucketWait
	// EventHook: the OnRetry hook ran before attempt Attempt; Record is the
	// attempt that was retried.
	EventHook
	// EventDocument: a streamed attempt (Strategy.Stream) printed a JSON
	// document that neither succeeds nor fails; Record is that document's
	// evaluation (Record.Document its number), and the attempt reads on.
	EventDocument
)

// HookResult is what an OnRetry hook did. A hook's failure does not stop the
// run: the strategy reports it (EventHook) and starts the retry.
type HookResult struct {
	// Err says how the hook failed (an exit status, a start failure, a
	// timeout); nil when it succeeded.
	Err error
	// Stopped is the cause that stopped the hook (ErrAttemptTimeout,
	// ErrDeadline, *Interrupt); nil when it ended by itself.
	Stopped error
	// Duration is how long it ran (the strategy sets it).
	Duration time.Duration
}
