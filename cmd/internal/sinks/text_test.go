package sinks

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"syscall"
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

// The end line of a run a signal interrupted says when the signal came:
// during an attempt, while waiting before the next one, or during the
// --on-retry hook before it.
func TestLogInterruptedWhen(t *testing.T) {
	res := &runner.Result{Attempt: &acceptor.Attempt{ExitCode: 1, Failed: true}}
	intr := &runner.Interrupt{Signal: syscall.SIGTERM}
	for _, tt := range []struct {
		name string
		last runner.Record
		want string
	}{
		{"during an attempt", runner.Record{Number: 1, Result: res}, "interrupted by SIGTERM during attempt 1 after "},
		{"during the delay", runner.Record{Number: 1, Result: res, Retried: true, Delay: time.Hour}, "interrupted by SIGTERM while waiting before attempt 2 after "},
		{"during the hook", runner.Record{Number: 3, Result: res, Retried: true, Delay: time.Second, Hook: &runner.HookResult{Stopped: intr}}, "interrupted by SIGTERM during the --on-retry hook before attempt 4 after "},
	} {
		var buf bytes.Buffer
		l := NewText(TextConfig{}, NewLines(&buf, false))
		l.Observe(runner.Event{Kind: runner.EventEnd, Outcome: &runner.Outcome{End: runner.EndInterrupted, Err: intr, Attempts: []runner.Record{tt.last}}, Time: time.Now()})
		if !strings.Contains(buf.String(), "retry: "+tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, buf.String(), tt.want)
		}
	}
}
