package runner

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// stuckLimiter never lets an attempt through; it records updates.
type stuckLimiter struct{ updates int }

func (l *stuckLimiter) Wait(ctx context.Context) error { <-ctx.Done(); return context.Cause(ctx) }
func (l *stuckLimiter) Update(bool)                    { l.updates++ }

// A resumed run makes the one attempt it is given, numbered as in the
// sequence, and ends with the planned delay instead of sleeping it; the
// limiter is updated, never waited for.
func TestResumeSchedulesWithoutSleeping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &script{codes: []int{1}, t0: time.Now()}
		lim := &stuckLimiter{}
		s := newStrategy(doubling(time.Second))
		s.Limiter = lim
		s.Resume = &Resume{Attempt: 3, Previous: 2 * time.Second}
		var got []int
		out := s.Run(t.Context(), SourceFunc(func(ctx context.Context, n, max int) *Result {
			got = append(got, n, max)
			return src.Attempt(ctx, n, max)
		}))
		if out.End != EndScheduled || len(out.Attempts) != 1 {
			t.Fatalf("end %v after %d attempts, want retry scheduled after 1", out.End, len(out.Attempts))
		}
		r := out.Attempts[0]
		if r.Number != 3 || r.Delay != 4*time.Second || !r.Retried || got[0] != 3 || got[1] != 5 {
			t.Errorf("record %d, delay %v, retried %v, source saw %v; want 3, 4s, true, [3 5]", r.Number, r.Delay, r.Retried, got)
		}
		if !out.Next.Equal(src.t0.Add(4 * time.Second)) {
			t.Errorf("next due %v after the start, want 4s", out.Next.Sub(src.t0))
		}
		if el := time.Since(src.t0); el != 0 || lim.updates != 1 {
			t.Errorf("took %v with %d limiter updates; want no time and 1 update", el, lim.updates)
		}
	})
}

// The attempt limit counts the sequence's attempts.
func TestResumeLastAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStrategy(constant(time.Second))
		s.Resume = &Resume{Attempt: 5}
		out := s.Run(t.Context(), &script{codes: []int{1}, t0: time.Now()})
		if out.End != EndAttempts || out.Last().Number != 5 {
			t.Errorf("end %v on attempt %d, want attempts exhausted on 5", out.End, out.Last().Number)
		}
	})
}

// The deadline counts from the sequence's start: a delay past it ends the
// run; an attempt running at it is stopped; Elapsed covers the sequence.
func TestResumeDeadlineFromSequenceStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStrategy(constant(2 * time.Second))
		s.MaxTime = 10 * time.Second
		s.Resume = &Resume{Attempt: 2, Start: time.Now().Add(-9 * time.Second)}
		out := s.Run(t.Context(), &script{codes: []int{1}, t0: time.Now()})
		if out.End != EndDeadline || out.Elapsed != 9*time.Second {
			t.Errorf("end %v, elapsed %v; want time budget exceeded after 9s", out.End, out.Elapsed)
		}

		s.Resume = &Resume{Attempt: 2, Start: time.Now().Add(-9 * time.Second)}
		src := &script{codes: []int{1}, runFor: 5 * time.Second, t0: time.Now()}
		out = s.Run(t.Context(), src)
		if out.End != EndDeadline || time.Since(src.t0) != time.Second {
			t.Errorf("end %v after %v; want the attempt stopped at the deadline, 1s in", out.End, time.Since(src.t0))
		}
	})
}
