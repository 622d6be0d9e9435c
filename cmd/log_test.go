package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner"
)

// The log learns the run's limits from the events alone: its plan has no
// strategy to read.
func TestLogReadsTheLimitsFromTheEvents(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		l := &logger{o: &Options{LogFormat: format}, p: &plan{}, w: &buf, now: time.Now}
		rec := &runner.Record{Number: 2, Result: &runner.Result{Attempt: &acceptor.Attempt{}},
			Decision: acceptor.Decision{Directive: acceptor.Succeed, Source: acceptor.FromFallback},
			Streak:   1, Retried: true, Delay: time.Second}
		l.observe(runner.Event{Kind: runner.EventAttemptEnd, Record: rec, MaxAttempts: 5, Consecutive: 3, Time: time.Now()})
		want := map[string]string{
			"text": "retry: attempt 2/5: exit status 0: success [no acceptor matched] (1/3 in a row); next attempt in 1s\n",
			"json": `"max_attempts":5`,
		}[format]
		if !strings.Contains(buf.String(), want) {
			t.Errorf("%s log %q, want %q in it", format, buf.String(), want)
		}
	}
}
