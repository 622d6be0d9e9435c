package sinks

import (
	"syscall"
	"testing"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner"
)

func TestResolveCI(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	gh := env(map[string]string{"GITHUB_ACTIONS": "true"})
	gl := env(map[string]string{"GITLAB_CI": "true"})
	none := env(nil)
	for _, c := range []struct {
		mode     string
		getenv   func(string) string
		terminal bool
		want     CISystem
	}{
		{"auto", gh, false, CIGitHub},
		{"auto", gl, false, CIGitLab},
		{"auto", none, false, CINone},
		{"auto", gh, true, CINone}, // a person at a terminal
		{"auto", env(map[string]string{"GITHUB_ACTIONS": "1"}), false, CINone},
		{"github", none, true, CIGitHub},
		{"gitlab", gh, false, CIGitLab},
		{"none", gh, false, CINone},
	} {
		if got := ResolveCI(c.mode, c.getenv, c.terminal); got != c.want {
			t.Errorf("ResolveCI(%q, terminal %v) = %v, want %v", c.mode, c.terminal, got, c.want)
		}
	}
}

func TestMarkdownCell(t *testing.T) {
	got := markdownCell("a|b\n<script>`x`*_[l](u)\\")
	want := `a\|b &lt;script&gt;\` + "`" + `x\` + "`" + `\*\_\[l\](u)\\`
	if got != want {
		t.Errorf("markdownCell = %q, want %q", got, want)
	}
}

func TestCIEndMessage(t *testing.T) {
	// acc is the index of the deciding acceptor; -1 for the fallback.
	rec := func(n, code int, d acceptor.Directive, name string, acc int) runner.Record {
		dec := acceptor.Decision{Directive: d, Name: name, Source: acceptor.FromFallback}
		if acc >= 0 {
			dec.Source, dec.Acceptor = acceptor.FromAcceptor, acc
		}
		return runner.Record{Number: n, Result: &runner.Result{Attempt: &acceptor.Attempt{ExitCode: code}}, Decision: dec}
	}
	for _, c := range []struct {
		out  runner.Outcome
		want string
	}{
		{runner.Outcome{End: runner.EndAttempts, Attempts: []runner.Record{rec(1, 1, acceptor.RetryServer, "", -1), rec(2, 1, acceptor.RetryServer, "", -1)}},
			"gave up after 2 attempts (attempts exhausted); last attempt: exit status 1, retry (server-side) [no acceptor matched]"},
		{runner.Outcome{End: runner.EndFailure, Attempts: []runner.Record{rec(1, 3, acceptor.Fail, "--failure-exit 3", 0)}},
			"failed on attempt 1; last attempt: exit status 3, failure [--failure-exit 3]"},
		{runner.Outcome{End: runner.EndInterrupted, Err: &runner.Interrupt{Signal: syscall.SIGTERM}, Attempts: []runner.Record{{Number: 1, Result: &runner.Result{Attempt: &acceptor.Attempt{ExitCode: 143}}}}},
			"interrupted after 1 attempt: interrupted by SIGTERM; last attempt: exit status 143"},
		{runner.Outcome{End: runner.EndDeadline, Attempts: []runner.Record{rec(4, 1, acceptor.RetryServer, "", -1)}},
			"gave up after 4 attempts (time budget exceeded); last attempt: exit status 1, retry (server-side) [no acceptor matched]"},
	} {
		if got := ciEndMessage(&c.out).String(); got != c.want {
			t.Errorf("ciEndMessage(%s) =\n%q, want\n%q", c.out.End, got, c.want)
		}
	}
}
