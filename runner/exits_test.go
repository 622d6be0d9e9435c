package runner

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/bucket"
)

// ledger is a bucket that records what the strategy does with each token.
// ScheduleRetry finds the bucket empty from its empty-th call on (0:
// never), for refills calls (0: for ever), with refill as the EmptyError's
// Refill.
type ledger struct {
	acquireErr error
	empty      int
	refills    int
	refill     time.Duration
	scheduled  int
	tokens     []*ledgerToken
}

func (l *ledger) Acquire(context.Context) (bucket.Token, error) {
	if l.acquireErr != nil {
		return nil, l.acquireErr
	}
	return l.token(), nil
}

func (l *ledger) token() *ledgerToken {
	t := &ledgerToken{l: l}
	l.tokens = append(l.tokens, t)
	return t
}

// ledgerToken lists the calls that settled it.
type ledgerToken struct {
	l       *ledger
	settled []string
}

func (t *ledgerToken) ScheduleRetry(context.Context, bool) (bucket.Token, error) {
	t.l.scheduled++
	if t.l.empty > 0 && t.l.scheduled >= t.l.empty && (t.l.refills == 0 || t.l.scheduled < t.l.empty+t.l.refills) {
		return nil, &bucket.EmptyError{Cost: 14, Capacity: 500, Refill: t.l.refill}
	}
	t.settled = append(t.settled, "retry")
	return t.l.token(), nil
}

func (t *ledgerToken) Cancel()        { t.settled = append(t.settled, "cancel") }
func (t *ledgerToken) NotifySuccess() { t.settled = append(t.settled, "success") }
func (t *ledgerToken) NotifyFailure() { t.settled = append(t.settled, "failure") }

// Every way a run ends settles the token it holds the right way, once,
// settles every earlier token once, reports every attempt's end once and
// the run's end last. (A resumed run that schedules its retry keeps the
// token that paid for it: a later invocation makes that retry.)
func TestEveryEndSettlesItsTokenAndReportsOnce(t *testing.T) {
	failOn2 := &acceptor.Chain{Acceptors: []acceptor.Acceptor{{State: acceptor.StateFailure, Name: "exit 2",
		Matcher: acceptor.MatcherFunc(func(e *acceptor.Env) acceptor.MatchResult {
			return acceptor.MatchResult{Matched: e.Attempt.ExitCode == 2}
		})}}}
	for _, tc := range []struct {
		name   string
		setup  func(s *Strategy, l *ledger, src *script, cancel context.CancelCauseFunc)
		source func(src *script, cancel context.CancelCauseFunc) Source
		end    End
		last   string // how the last token is settled; "" not at all
	}{{
		name: "the first token cannot be had",
		setup: func(s *Strategy, l *ledger, _ *script, _ context.CancelCauseFunc) {
			l.acquireErr = errors.New("store down")
		},
		end: EndFailure,
	}, {
		name: "the limiter waits past the deadline",
		setup: func(s *Strategy, _ *ledger, _ *script, _ context.CancelCauseFunc) {
			s.MaxTime, s.Limiter, s.Backoff = time.Second, &blockingLimiter{}, constant(0)
		},
		end: EndDeadline, last: "cancel",
	}, {
		name: "the deadline stops an attempt",
		setup: func(s *Strategy, _ *ledger, src *script, _ context.CancelCauseFunc) {
			s.MaxTime, src.runFor = time.Second, time.Minute
		},
		end: EndDeadline, last: "failure",
	}, {
		name:  "a success",
		setup: func(_ *Strategy, _ *ledger, src *script, _ context.CancelCauseFunc) { src.codes = []int{1, 0} },
		end:   EndSuccess, last: "success",
	}, {
		name: "a success after successes in a row",
		setup: func(s *Strategy, _ *ledger, src *script, _ context.CancelCauseFunc) {
			src.codes, s.Consecutive = []int{0}, 2
		},
		end: EndSuccess, last: "success",
	}, {
		name: "a failure directive",
		setup: func(s *Strategy, _ *ledger, src *script, _ context.CancelCauseFunc) {
			src.codes, s.Chain = []int{1, 2}, failOn2
		},
		end: EndFailure, last: "failure",
	}, {
		name: "a signal during an attempt that ends by itself",
		source: func(src *script, cancel context.CancelCauseFunc) Source {
			return SourceFunc(func(ctx context.Context, n, max int) *Result {
				cancel(&Interrupt{Signal: syscall.SIGTERM})
				return src.Attempt(ctx, n, max)
			})
		},
		end: EndInterrupted, last: "failure",
	}, {
		name: "attempts exhausted",
		end:  EndAttempts, last: "failure",
	}, {
		name: "the delay ends past the deadline",
		setup: func(s *Strategy, _ *ledger, _ *script, _ context.CancelCauseFunc) {
			s.Backoff, s.MaxTime = constant(time.Minute), 10*time.Second
		},
		end: EndDeadline, last: "failure",
	}, {
		name:  "the bucket is empty",
		setup: func(_ *Strategy, l *ledger, _ *script, _ context.CancelCauseFunc) { l.empty = 2 },
		end:   EndBucket, last: "failure",
	}, {
		name: "a signal while waiting for the refill",
		setup: func(s *Strategy, l *ledger, _ *script, cancel context.CancelCauseFunc) {
			l.empty, l.refill, s.WaitForRefill = 2, time.Second, true
			go func() {
				time.Sleep(1500 * time.Millisecond)
				cancel(&Interrupt{Signal: syscall.SIGINT})
			}()
		},
		end: EndInterrupted, last: "failure",
	}, {
		name: "the refill comes past the deadline",
		setup: func(s *Strategy, l *ledger, _ *script, _ context.CancelCauseFunc) {
			l.empty, l.refill, s.WaitForRefill, s.MaxTime = 2, time.Second, true, 3500*time.Millisecond
		},
		end: EndBucket, last: "failure",
	}, {
		name: "a resumed run schedules its retry",
		setup: func(s *Strategy, _ *ledger, _ *script, _ context.CancelCauseFunc) {
			s.Resume = &Resume{Attempt: 2}
		},
		end: EndScheduled, last: "",
	}, {
		name: "a signal during the delay",
		setup: func(s *Strategy, _ *ledger, _ *script, cancel context.CancelCauseFunc) {
			go func() {
				time.Sleep(1500 * time.Millisecond) // during the second delay
				cancel(&Interrupt{Signal: syscall.SIGINT})
			}()
		},
		end: EndInterrupted, last: "cancel",
	}, {
		name: "the deadline stops the --on-retry hook",
		setup: func(s *Strategy, _ *ledger, src *script, _ context.CancelCauseFunc) {
			h := &hookLog{t0: src.t0, run: time.Hour}
			s.MaxTime, s.OnRetry = 5*time.Second, h.hook
		},
		end: EndDeadline, last: "cancel",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(t.Context())
				defer cancel(nil)
				l := &ledger{}
				src := &script{codes: []int{1}, t0: time.Now()}
				s := newStrategy(constant(time.Second))
				s.MaxAttempts, s.Bucket = 3, l
				reported := map[int]int{}
				var ends int
				s.Observe = func(e Event) {
					if ends > 0 {
						t.Errorf("event %v after the end", e.Kind)
					}
					switch e.Kind {
					case EventAttemptEnd:
						reported[e.Record.Number]++
					case EventEnd:
						ends++
					}
				}
				if tc.setup != nil {
					tc.setup(s, l, src, cancel)
				}
				var from Source = src
				if tc.source != nil {
					from = tc.source(src, cancel)
				}
				out := s.Run(ctx, from)

				if out.End != tc.end {
					t.Fatalf("end %v (%v), want %v", out.End, out.Err, tc.end)
				}
				if ends != 1 {
					t.Errorf("the end reported %d times", ends)
				}
				for _, r := range out.Attempts {
					if reported[r.Number] != 1 {
						t.Errorf("attempt %d's end reported %d times", r.Number, reported[r.Number])
					}
				}
				var settled []string
				for i, tok := range l.tokens {
					settled = append(settled, fmt.Sprint(tok.settled))
					want := 1
					if i == len(l.tokens)-1 && tc.last == "" {
						want = 0
					}
					if len(tok.settled) != want {
						t.Errorf("token %d settled by %v, want %d call", i+1, tok.settled, want)
					}
				}
				if tc.last != "" {
					if len(l.tokens) == 0 {
						t.Fatalf("no token taken; want the last settled by %s", tc.last)
					}
					if got := l.tokens[len(l.tokens)-1].settled; len(got) == 0 || got[len(got)-1] != tc.last {
						t.Errorf("tokens settled %v; want the last by %s", settled, tc.last)
					}
				}
			})
		})
	}
}

// Every event carries the limits a log shows beside it.
func TestEventsCarryTheLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStrategy(constant(time.Second))
		s.Consecutive = 2
		s.Bucket = &ledger{empty: 1, refills: 1, refill: time.Second}
		s.WaitForRefill = true
		s.OnRetry = (&hookLog{t0: time.Now()}).hook
		seen := map[EventKind]bool{}
		s.Observe = func(e Event) {
			seen[e.Kind] = true
			if e.MaxAttempts != 5 || e.Consecutive != 2 {
				t.Errorf("event %v carries %d attempts, %d in a row; want 5, 2", e.Kind, e.MaxAttempts, e.Consecutive)
			}
		}
		s.Run(t.Context(), &script{codes: []int{1, 0}, t0: time.Now()})
		if len(seen) != 5 {
			t.Errorf("saw events %v, want all five kinds", seen)
		}
	})
}
