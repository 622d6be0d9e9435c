package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/acceptor"
)

// streams is a fake Streamer: attempt n hands over docs[n-1] (the last
// repeating), one document at a time, and ends with exit status 0 unless
// a document decides it first.
type streams struct {
	docs    [][]string
	handed  []int // documents handed over, per attempt
	stopped []bool
}

func (s *streams) Attempt(ctx context.Context, n, max int) *Result {
	panic("a Streamer's Attempt is not called with Strategy.Stream")
}

func (s *streams) AttemptStream(ctx context.Context, n, max int, doc func([]byte) bool) *Result {
	docs := s.docs[min(n, len(s.docs))-1]
	res := &Result{Attempt: &acceptor.Attempt{}}
	handed := 0
	for _, d := range docs {
		handed++
		res.Documents++
		last := []byte(d)
		res.Stdout = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(last)), nil }
		if doc(last) {
			res.Decided = true
			break
		}
	}
	s.handed, s.stopped = append(s.handed, handed), append(s.stopped, res.Decided)
	return res
}

// phaseChain succeeds on "ok", fails on "bad".
func phaseChain() *acceptor.Chain {
	is := func(want string) acceptor.Matcher {
		return acceptor.MatcherFunc(func(e *acceptor.Env) acceptor.MatchResult {
			rc, _ := e.Attempt.OpenStdout()
			b, _ := io.ReadAll(rc)
			return acceptor.MatchResult{Matched: string(b) == want, Value: string(b)}
		})
	}
	return &acceptor.Chain{
		Acceptors: []acceptor.Acceptor{{State: acceptor.StateSuccess, Name: "ok", Matcher: is("ok")}, {State: acceptor.StateFailure, Name: "bad", Matcher: is("bad")}},
		Fallback:  acceptor.WaitFallback,
	}
}

func TestStreamDecidedByADocument(t *testing.T) {
	for _, tc := range []struct {
		docs    [][]string
		end     End
		handed  string
		events  int // EventDocument
		decider int // Record.Document of the last attempt
	}{
		{[][]string{{"pending", "pending", "ok", "never"}}, EndSuccess, "[3]", 2, 3},
		{[][]string{{"pending", "bad", "never"}}, EndFailure, "[2]", 1, 2},
		// A stream that ends is an attempt, restarted after the delay.
		{[][]string{{"pending"}, {"pending", "ok"}}, EndSuccess, "[1 2]", 2, 2},
		{[][]string{{"pending"}}, EndAttempts, "[1 1 1]", 3, 0},
	} {
		t.Run(fmt.Sprint(tc.docs), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := &streams{docs: tc.docs}
				s := &Strategy{Chain: phaseChain(), Backoff: constant(time.Second), MaxAttempts: 3, Stream: true}
				events := 0
				s.Observe = func(e Event) {
					if e.Kind == EventDocument {
						events++
						if e.Record.Document == 0 || !e.Record.Decision.Directive.IsRetry() {
							t.Errorf("document event %+v", e.Record)
						}
					}
				}
				out := s.Run(t.Context(), src)
				if out.End != tc.end || fmt.Sprint(src.handed) != tc.handed || events != tc.events || out.Last().Document != tc.decider {
					t.Errorf("end %v, handed %v, %d document events, decided by document %d; want %v, %s, %d, %d",
						out.End, src.handed, events, out.Last().Document, tc.end, tc.handed, tc.events, tc.decider)
				}
			})
		})
	}
}
