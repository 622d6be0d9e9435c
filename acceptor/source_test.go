package acceptor

import (
	"errors"
	"testing"
)

// The chain says what decided: the index of the acceptor that matched, or
// the fallback; the zero Decision is nobody's.
func TestChainSetsSource(t *testing.T) {
	t.Parallel()
	c := &Chain{Acceptors: []Acceptor{
		{State: StateFailure, Matcher: ExitMatcher(Codes{{3, 3}}), Name: "--failure-exit 3"},
		{State: StateSuccess, Matcher: ExitMatcher(Codes{{0, 0}}), Name: "--success-exit 0"},
	}}
	for _, tt := range []struct {
		name     string
		a        Attempt
		source   Source
		acceptor int
		by       string
	}{
		{"first acceptor", Attempt{ExitCode: 3, Failed: true}, FromAcceptor, 0, "--failure-exit 3"},
		{"second acceptor", Attempt{ExitCode: 0}, FromAcceptor, 1, "--success-exit 0"},
		{"fallback", Attempt{ExitCode: 1, Failed: true}, FromFallback, 0, "fallback"},
		{"fallback for HTTP", Attempt{Kind: HTTPAttempt, Status: 200}, FromFallback, 0, "fallback"},
	} {
		d := c.Evaluate(&tt.a)
		if d.Source != tt.source || d.Acceptor != tt.acceptor || d.Name != tt.by {
			t.Errorf("%s: source %v, acceptor %d, name %q; want %v, %d, %q", tt.name, d.Source, d.Acceptor, d.Name, tt.source, tt.acceptor, tt.by)
		}
	}
	var zero Decision
	if zero.Source != NoSource || zero.Directive != NoDecision {
		t.Errorf("zero Decision: source %v, directive %v; want none, no decision", zero.Source, zero.Directive)
	}
}

func TestSourceAndKindNames(t *testing.T) {
	t.Parallel()
	for s, want := range map[Source]string{NoSource: "none", FromAcceptor: "acceptor", FromFallback: "fallback", FromRetrySafety: "retry safety", Source(99): "unknown"} {
		if got := s.String(); got != want {
			t.Errorf("Source(%d).String() = %q, want %q", int(s), got, want)
		}
	}
	for k, want := range map[AttemptKind]string{CommandAttempt: "command", HTTPAttempt: "HTTP", TCPAttempt: "TCP", AttemptKind(99): "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("AttemptKind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

// Only a command that ran (or could not start) has an exit status; the
// matchers and fallbacks follow the kind, not the value of ExitCode.
func TestHasExitCodeFollowsKind(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		a    Attempt
		want bool
	}{
		{"zero value is a command", Attempt{}, true},
		{"command exit 0", Attempt{Kind: CommandAttempt}, true},
		{"command not found", Attempt{Kind: CommandAttempt, NotStarted: true, ExitCode: 127, Failed: true}, true},
		{"command skipped", Attempt{Kind: CommandAttempt, Skipped: true, Failed: true, Err: errors.New("time budget exceeded")}, false},
		{"HTTP", Attempt{Kind: HTTPAttempt, Status: 200}, false},
		{"TCP", Attempt{Kind: TCPAttempt}, false},
	} {
		if got := tt.a.HasExitCode(); got != tt.want {
			t.Errorf("%s: HasExitCode() = %v, want %v", tt.name, got, tt.want)
		}
	}
	// An HTTP attempt's ExitCode of 0 is not an exit status: --success-exit
	// 0 does not match it.
	http := &Attempt{Kind: HTTPAttempt, Status: 503, Failed: true}
	if r := ExitMatcher(Codes{{0, 0}}).Match(&Env{Attempt: http}); r.Matched || r.Value != "no exit status (HTTP)" {
		t.Errorf("exit matcher on HTTP 503: %+v", r)
	}
	if d, why := RunFallback(http); d != RetryServer || why != "HTTP 503" {
		t.Errorf("RunFallback(HTTP 503) = %v, %q", d, why)
	}
	cmd := &Attempt{Kind: CommandAttempt}
	if d, why := RunFallback(cmd); d != Succeed || why != "exit status 0" {
		t.Errorf("RunFallback(exit 0) = %v, %q", d, why)
	}
}
