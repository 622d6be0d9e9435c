package sinks

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner"
)

// The log learns the run's limits from the events alone: its plan has no
// strategy to read.
func TestLogReadsTheLimitsFromTheEvents(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		lines := NewLines(&buf, false)
		l := map[string]Sink{"text": NewText(TextConfig{}, lines), "json": NewJSON(JSONConfig{}, lines)}[format]
		rec := &runner.Record{Number: 2, Result: &runner.Result{Attempt: &acceptor.Attempt{}},
			Decision: acceptor.Decision{Directive: acceptor.Succeed, Source: acceptor.FromFallback},
			Streak:   1, Retried: true, Delay: time.Second}
		l.Observe(runner.Event{Kind: runner.EventAttemptEnd, Record: rec, MaxAttempts: 5, Consecutive: 3, Time: time.Now()})
		want := map[string]string{
			"text": "retry: attempt 2/5: exit status 0: success [no acceptor matched] (1/3 in a row); next attempt in 1s\n",
			"json": `"max_attempts":5`,
		}[format]
		if !strings.Contains(buf.String(), want) {
			t.Errorf("%s log %q, want %q in it", format, buf.String(), want)
		}
	}
}

// On a terminal the delay is slept in 200ms steps under a status line that
// counts down, cleared at the end; a cancelled context ends it with its
// cause.
func TestLogSleepCountsDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		l := NewText(TextConfig{TTY: true}, NewLines(&buf, false))
		l.start = time.Now()
		if err := l.Sleep(t.Context(), time.Second); err != nil || time.Since(l.start) != time.Second {
			t.Fatalf("sleep = %v after %v", err, time.Since(l.start))
		}
		got := buf.String()
		for _, want := range []string{"retry: 0s elapsed; next attempt in 1s", "retry: 800ms elapsed; next attempt in 200ms"} {
			if !strings.Contains(got, want) {
				t.Errorf("status lines %q, want %q in them", got, want)
			}
		}
		if strings.Count(got, "next attempt in") != 5 || !strings.HasSuffix(got, "\r\x1b[K") {
			t.Errorf("status lines %q: want 5, then cleared", got)
		}

		cause := errors.New("stop")
		ctx, cancel := context.WithCancelCause(t.Context())
		time.AfterFunc(300*time.Millisecond, func() { cancel(cause) })
		if err := l.Sleep(ctx, 2*time.Second); err != cause {
			t.Errorf("cancelled sleep = %v, want %v", err, cause)
		}
	})
}
