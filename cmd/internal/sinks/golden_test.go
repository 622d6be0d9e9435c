package sinks

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/internal/testdir"
	"github.com/retry-dev/retry/runner"
)

var update = flag.Bool("update", false, "rewrite the sinks' golden files in testdata/")

// t0 is when the recorded runs start.
var t0 = time.Date(2026, 11, 25, 13, 0, 0, 0, time.UTC)

// recordedRun is the event stream of a run of a command that fails twice
// (the first time with a secret in its error text), runs an --on-retry hook
// that fails, waits for a scope's refill, and succeeds on attempt 3.
func recordedRun() []runner.Event {
	fail := func(n int, start time.Duration, msg string) *runner.Record {
		return &runner.Record{Number: n, Start: t0.Add(start), Duration: 120 * time.Millisecond,
			Result:   &runner.Result{Attempt: &acceptor.Attempt{ExitCode: 1, Failed: true, ErrorCode: msg}},
			Decision: acceptor.Decision{Directive: acceptor.RetryServer, Source: acceptor.FromFallback, Value: "exit status 1"},
			Delay:    time.Second, Retried: true}
	}
	r1, r2 := fail(1, 0, "https://alice:hunter2@db.example"), fail(2, 1120*time.Millisecond, "")
	// What the failed attempts wrote: the second without a final newline,
	// with a password that the echo policy hides.
	r1.Result.Attempt.Stdout = stdoutOf("building…\nFAIL: 2 tests\n")
	r2.Result.Attempt.Stdout = stdoutOf("password=hunter2 rejected")
	r2.Hook = &runner.HookResult{Err: errors.New("exit status 4"), Duration: 5 * time.Millisecond}
	r3 := &runner.Record{Number: 3, Start: t0.Add(2240 * time.Millisecond), Duration: 80 * time.Millisecond,
		Result:   &runner.Result{Attempt: &acceptor.Attempt{}},
		Decision: acceptor.Decision{Directive: acceptor.Succeed, Source: acceptor.FromAcceptor, Name: "--success-exit 0"}}
	out := &runner.Outcome{End: runner.EndSuccess, Attempts: []runner.Record{*r1, *r2, *r3}, Start: t0, Elapsed: 2320 * time.Millisecond}
	ev := func(e runner.Event) runner.Event {
		e.MaxAttempts = 5
		if e.Time.IsZero() {
			e.Time = t0
		}
		return e
	}
	return []runner.Event{
		ev(runner.Event{Kind: runner.EventAttemptStart, Attempt: 1, Time: r1.Start}),
		ev(runner.Event{Kind: runner.EventAttemptEnd, Record: r1, Time: r1.Start.Add(r1.Duration)}),
		ev(runner.Event{Kind: runner.EventAttemptStart, Attempt: 2, Time: r2.Start}),
		ev(runner.Event{Kind: runner.EventAttemptEnd, Record: r2, Time: r2.Start.Add(r2.Duration)}),
		ev(runner.Event{Kind: runner.EventHook, Attempt: 3, Hook: r2.Hook, Time: r3.Start}),
		ev(runner.Event{Kind: runner.EventBucketWait, Record: r2, Wait: 1500 * time.Millisecond,
			Empty: &bucket.EmptyError{Cost: 14, Available: 2, Capacity: 500}, Time: r3.Start}),
		ev(runner.Event{Kind: runner.EventAttemptStart, Attempt: 3, Time: r3.Start}),
		ev(runner.Event{Kind: runner.EventAttemptEnd, Record: r3, Time: r3.Start.Add(r3.Duration)}),
		ev(runner.Event{Kind: runner.EventEnd, Outcome: out, Time: t0.Add(out.Elapsed)}),
	}
}

// recordedHTTP is the event stream of an HTTP call answered 503 and given
// up on after one attempt.
func recordedHTTP() []runner.Event {
	r := &runner.Record{Number: 1, Start: t0, Duration: 30 * time.Millisecond,
		Result: &runner.Result{
			Attempt: &acceptor.Attempt{Kind: acceptor.HTTPAttempt, Status: 503, Failed: true},
			Exchange: &runner.Exchange{Method: "GET", URL: "https://REDACTED@api.example/x",
				RequestHeader: http.Header{"Authorization": {"REDACTED"}, "User-Agent": {"retry/dev"}},
				Status:        "HTTP/1.1 503 Service Unavailable", Header: http.Header{"Retry-After": {"1"}},
				BodyRead: true, BodyBytes: 4}},
		Decision: acceptor.Decision{Directive: acceptor.RetryServer, Source: acceptor.FromFallback, Value: "HTTP 503"}}
	out := &runner.Outcome{End: runner.EndAttempts, Attempts: []runner.Record{*r}, Start: t0, Elapsed: 30 * time.Millisecond}
	return []runner.Event{
		{Kind: runner.EventAttemptStart, Attempt: 1, MaxAttempts: 1, Time: t0},
		{Kind: runner.EventAttemptEnd, Record: r, MaxAttempts: 1, Time: t0.Add(r.Duration)},
		{Kind: runner.EventEnd, Outcome: out, MaxAttempts: 1, Time: t0.Add(out.Elapsed)},
	}
}

// TestSinksGolden feeds the recorded event streams to each sink and
// compares what it writes with testdata/STREAM.SINK.golden (go test
// -update rewrites them).
func TestSinksGolden(t *testing.T) {
	streams := map[string][]runner.Event{"run": recordedRun(), "http": recordedHTTP()}
	sinks := map[string]func(w *bytes.Buffer) Sink{
		"text":    func(w *bytes.Buffer) Sink { return NewText(TextConfig{}, NewLines(w, false)) },
		"verbose": func(w *bytes.Buffer) Sink { return NewText(TextConfig{Verbose: true}, NewLines(w, false)) },
		"json":    func(w *bytes.Buffer) Sink { return NewJSON(JSONConfig{Verbose: true}, NewLines(w, false)) },
		"github": func(w *bytes.Buffer) Sink {
			lines := NewLines(w, true)
			ci := NewCI(CIConfig{System: CIGitHub, Getenv: func(string) string { return "" }}, lines, w)
			return FanOut{ci.Before(), NewText(TextConfig{}, lines), ci.After()}
		},
		"retried": func(w *bytes.Buffer) Sink {
			return NewRetried(RetriedConfig{Show: true}, NewLines(w, false), w)
		},
		"retried-github": func(w *bytes.Buffer) Sink {
			return NewRetried(RetriedConfig{Show: true, Echo: echo.New(true)}, NewLines(w, true), w)
		},
		"gitlab": func(w *bytes.Buffer) Sink {
			lines := NewLines(w, false)
			ci := NewCI(CIConfig{System: CIGitLab}, lines, w)
			return FanOut{ci.Before(), NewText(TextConfig{}, lines), ci.After()}
		},
	}
	for stream, events := range streams {
		for name, newSink := range sinks {
			var buf bytes.Buffer
			s := newSink(&buf)
			for _, e := range events {
				s.Observe(e)
			}
			golden(t, stream+"."+name, buf.Bytes())
		}
		var out *runner.Outcome
		for _, e := range events {
			if e.Kind == runner.EventEnd {
				out = e.Outcome
			}
		}
		path := filepath.Join(testdir.New(t), "report.json")
		if err := WriteReport(ReportConfig{Path: path, Command: "run", Target: []string{"make", "test"}}, out, 0, nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, stream+".report", b)
	}
}

// stopToken is the random token of GitHub's ::stop-commands:: (the echo
// policy draws one per run), which golden files show as TOKEN.
var stopToken = regexp.MustCompile(`retry-[0-9a-f]{32}`)

// golden compares got with testdata/name.golden, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	got = stopToken.ReplaceAll(got, []byte("retry-TOKEN"))
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
	if strings.Contains(string(got), "hunter2") {
		t.Errorf("%s: a secret was written", name)
	}
}

// stdoutOf is an attempt's kept stdout holding s.
func stdoutOf(s string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(s)), nil }
}
