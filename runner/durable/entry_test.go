package durable_test

import (
	"testing"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/durable"
)

// EntryOf keeps what the history shows: the exit status of a command only,
// the acceptor's name, "fallback" for the fallback and for retry safety,
// nothing for an attempt nothing decided.
func TestEntryOfFollowsKindAndSource(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := func(a *acceptor.Attempt, d acceptor.Decision) *runner.Record {
		return &runner.Record{Number: 1, Start: t0, Result: &runner.Result{Attempt: a}, Decision: d}
	}
	byAcceptor := acceptor.Decision{Directive: acceptor.Fail, Source: acceptor.FromAcceptor, Acceptor: 0, Name: "--failure-exit 3"}
	byFallback := acceptor.Decision{Directive: acceptor.RetryServer, Source: acceptor.FromFallback, Name: "fallback"}
	bySafety := acceptor.Decision{Directive: acceptor.Fail, Source: acceptor.FromRetrySafety, Name: "retry safety"}
	for _, tt := range []struct {
		name     string
		r        *runner.Record
		exit     int
		hasExit  bool
		status   int
		acceptor string
		dir      string
	}{
		{"command by an acceptor", rec(&acceptor.Attempt{ExitCode: 3, Failed: true}, byAcceptor), 3, true, 0, "--failure-exit 3", "failure"},
		{"command by the fallback", rec(&acceptor.Attempt{ExitCode: 1, Failed: true}, byFallback), 1, true, 0, "fallback", "retry (server-side)"},
		{"HTTP by retry safety", rec(&acceptor.Attempt{Kind: acceptor.HTTPAttempt, Status: 503, Failed: true}, bySafety), -1, false, 503, "fallback", "failure"},
		{"TCP accepted", rec(&acceptor.Attempt{Kind: acceptor.TCPAttempt}, acceptor.Decision{Directive: acceptor.Succeed, Source: acceptor.FromFallback}), -1, false, 0, "fallback", "success"},
		{"command skipped", rec(&acceptor.Attempt{Skipped: true, Failed: true}, acceptor.Decision{}), -1, false, 0, "", durable.Interrupted},
	} {
		e := durable.EntryOf(tt.r, "x")
		if e.HasExitCode() != tt.hasExit || e.ExitCode != tt.exit || e.Status != tt.status || e.Acceptor != tt.acceptor || e.Directive != tt.dir {
			t.Errorf("%s: exit %d (has %v), status %d, acceptor %q, directive %q; want %d (%v), %d, %q, %q",
				tt.name, e.ExitCode, e.HasExitCode(), e.Status, e.Acceptor, e.Directive, tt.exit, tt.hasExit, tt.status, tt.acceptor, tt.dir)
		}
	}
	e := durable.NotStarted(4, t0)
	if e.HasExitCode() || e.Attempt != 4 || !e.Start.Equal(t0) || e.Directive != durable.Interrupted || e.Result != "did not start" {
		t.Errorf("NotStarted: %+v", e)
	}
}
