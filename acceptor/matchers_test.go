package acceptor

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// Attempts as the sources produce them.
var (
	cmdOK        = Attempt{Number: 1, ExitCode: 0}
	cmdExit3     = Attempt{Number: 1, Failed: true, ExitCode: 3}
	cmdNotFound  = Attempt{Number: 1, Failed: true, ExitCode: 127, NotStarted: true}
	cmdTimedOut  = Attempt{Number: 1, Failed: true, ExitCode: 143, TimedOut: true}
	cmdAWS404    = Attempt{Number: 1, Failed: true, ExitCode: 254, ErrorCode: "404", ErrorMessage: "Not Found"}
	cmdAWS301    = Attempt{Number: 1, Failed: true, ExitCode: 254, ErrorCode: "301", ErrorMessage: "Moved Permanently"}
	cmdThrottled = Attempt{Number: 1, Failed: true, ExitCode: 254, ErrorCode: "ThrottlingException"}
	cmdCode200   = Attempt{Number: 1, Failed: true, ExitCode: 1, ErrorCode: "200"}
	httpOK       = Attempt{Number: 1, Kind: HTTPAttempt, Status: 200}
	http404      = Attempt{Number: 1, Failed: true, Kind: HTTPAttempt, Status: 404}
	http503Slow  = Attempt{Number: 1, Failed: true, Kind: HTTPAttempt, Status: 503, ErrorCode: "SlowDown"}
	httpRefused  = Attempt{Number: 1, Failed: true, Kind: HTTPAttempt, Err: errors.New("connection refused"), Transient: true}
)

func match(m Matcher, a Attempt) MatchResult { return m.Match(&Env{Attempt: &a}) }

func codes(t *testing.T, parse func(string) (Codes, error), s string) Codes {
	t.Helper()
	c, err := parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type matcherCase struct {
	name    string
	m       Matcher
	a       Attempt
	matched bool
	value   string
}

func runMatcherCases(t *testing.T, tests []matcherCase) {
	t.Helper()
	for _, tt := range tests {
		r := match(tt.m, tt.a)
		if r.Matched != tt.matched || r.Value != tt.value {
			t.Errorf("%s: got matched=%v value=%q, want matched=%v value=%q", tt.name, r.Matched, r.Value, tt.matched, tt.value)
		}
	}
}

func TestExitMatcher(t *testing.T) {
	t.Parallel()
	ex := func(s string) Matcher { return ExitMatcher(codes(t, ParseExitCodes, s)) }
	runMatcherCases(t, []matcherCase{
		{"0 on success", ex("0"), cmdOK, true, "exit status 0"},
		{"0 on exit 3", ex("0"), cmdExit3, false, "exit status 3"},
		{"range holds 3", ex("1,3-5"), cmdExit3, true, "exit status 3"},
		{"list misses 3", ex("1,2,4"), cmdExit3, false, "exit status 3"},
		{"127 not started", ex("127"), cmdNotFound, true, "exit status 127"},
		{"143 timed out", ex("143"), cmdTimedOut, true, "exit status 143"},
		{"aws 254", ex("254"), cmdAWS404, true, "exit status 254"},
		{"HTTP 200 has no exit status", ex("0"), httpOK, false, "no exit status (HTTP)"},
		{"HTTP error has no exit status", ex("0-255"), httpRefused, false, "no exit status (HTTP)"},
		{"empty codes", ExitMatcher(nil), cmdOK, false, "exit status 0"},
	})
}

func TestOutputMatcher(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`(?i)rate exceeded`)
	long := "id=" + strings.Repeat("é", 100)
	tests := []struct {
		name    string
		re      *regexp.Regexp
		a       Attempt
		matched bool
		value   string
		detail  string
	}{
		{"stdout", re, Attempt{StdoutTail: []byte("ok\nRate Exceeded\n")}, true, `"Rate Exceeded"`, `stdout matched "(?i)rate exceeded"`},
		{"stderr", re, Attempt{Failed: true, ExitCode: 1, StdoutTail: []byte("{}"), StderrTail: []byte("error: rate exceeded")}, true, `"rate exceeded"`, `stderr matched "(?i)rate exceeded"`},
		{"stdout before stderr", regexp.MustCompile(`out|err`), Attempt{StdoutTail: []byte("out"), StderrTail: []byte("err")}, true, `"out"`, `stdout matched "out|err"`},
		{"HTTP body", regexp.MustCompile(`"state":\s*"ready"`), Attempt{Kind: HTTPAttempt, Status: 200, StdoutTail: []byte(`{"state": "ready"}`)}, true, `"\"state\": \"ready\""`, `stdout matched "\"state\":\\s*\"ready\""`},
		{"no match", re, Attempt{StdoutTail: []byte("fine"), StderrTail: []byte("")}, false, "no match in 4 bytes of stdout, 0 of stderr", ""},
		{"empty streams", re, Attempt{}, false, "no match in 0 bytes of stdout, 0 of stderr", ""},
		{"empty regexp matches empty output", regexp.MustCompile(``), Attempt{}, true, `""`, `stdout matched ""`},
		{"anchored at the window", regexp.MustCompile(`^done$`), Attempt{StdoutTail: []byte("line\ndone")}, false, "no match in 9 bytes of stdout, 0 of stderr", ""},
		{"multiline flag", regexp.MustCompile(`(?m)^done$`), Attempt{StdoutTail: []byte("line\ndone\n")}, true, `"done"`, `stdout matched "(?m)^done$"`},
		{"long match is cut", regexp.MustCompile(`id=\S+`), Attempt{StdoutTail: []byte(long)}, true, `"id=` + strings.Repeat("é", 37) + `…"`, `stdout matched "id=\\S+"`},
		{"invalid utf-8 quoted", regexp.MustCompile(`a.b`), Attempt{StdoutTail: []byte("a\xffb")}, true, `"a\xffb"`, `stdout matched "a.b"`},
		{"nil regexp", nil, Attempt{StdoutTail: []byte("x")}, false, "", ""},
	}
	for _, tt := range tests {
		r := match(OutputMatcher(tt.re), tt.a)
		if r.Matched != tt.matched || r.Value != tt.value || r.Detail != tt.detail {
			t.Errorf("%s: got %v %q %q, want %v %q %q", tt.name, r.Matched, r.Value, r.Detail, tt.matched, tt.value, tt.detail)
		}
	}
}

func TestErrorMatcher(t *testing.T) {
	t.Parallel()
	runMatcherCases(t, []matcherCase{
		{"code on failed attempt", ErrorMatcher("ThrottlingException"), cmdThrottled, true, "ThrottlingException"},
		{"other code", ErrorMatcher("ValidationError"), cmdThrottled, false, "ThrottlingException"},
		{"case matters", ErrorMatcher("throttlingexception"), cmdThrottled, false, "ThrottlingException"},
		{"blanks trimmed", ErrorMatcher(" ThrottlingException\n"), cmdThrottled, true, "ThrottlingException"},
		{"numeric code of the AWS CLI", ErrorMatcher("404"), cmdAWS404, true, "404"},
		{"successful attempt never has a code", ErrorMatcher("ThrottlingException"), Attempt{ExitCode: 0, ErrorCode: "ThrottlingException"}, false, "no error"},
		{"failed without code", ErrorMatcher("X"), cmdExit3, false, "no error code"},
		{"HTTP code from body", ErrorMatcher("SlowDown"), http503Slow, true, "SlowDown"},
		{"HTTP status as code", ErrorMatcher("404"), http404, true, "404"},
		{"HTTP code wins over status", ErrorMatcher("503"), http503Slow, false, "SlowDown"},
		{"transport error has no code", ErrorMatcher("0"), httpRefused, false, "no error code"},

		{"true on failed", ErrorMatcher("true"), cmdExit3, true, "no error code"},
		{"true on failed with code", ErrorMatcher("true"), cmdThrottled, true, "ThrottlingException"},
		{"true on HTTP transport error", ErrorMatcher("true"), httpRefused, true, "no error code"},
		{"true on success", ErrorMatcher("true"), cmdOK, false, "no error"},
		{"true on HTTP success", ErrorMatcher("true"), httpOK, false, "no error"},
		{"false on success", ErrorMatcher("false"), cmdOK, true, "no error"},
		{"false on HTTP success", ErrorMatcher("false"), httpOK, true, "no error"},
		{"false on failed", ErrorMatcher("false"), cmdThrottled, false, "ThrottlingException"},
		{"false on timeout", ErrorMatcher("false"), cmdTimedOut, false, "no error code"},
		{"timeout on timeout", ErrorMatcher("timeout"), cmdTimedOut, true, "timed out"},
		{"timeout on failed", ErrorMatcher("timeout"), cmdExit3, false, "not timed out"},
		{"timeout on success", ErrorMatcher("timeout"), cmdOK, false, "not timed out"},
		{"timeout on HTTP error", ErrorMatcher("timeout"), httpRefused, false, "not timed out"},

		{"empty code", ErrorMatcher(""), cmdExit3, false, ""},
		{"blank code", ErrorMatcher("  "), cmdOK, false, ""},
	})
}

func TestStatusMatcher(t *testing.T) {
	t.Parallel()
	st := func(s string) Matcher { return StatusMatcher(codes(t, ParseStatusCodes, s)) }
	runMatcherCases(t, []matcherCase{
		{"HTTP 200", st("200"), httpOK, true, "HTTP 200"},
		{"HTTP 200 not in 4xx", st("400-499"), httpOK, false, "HTTP 200"},
		{"HTTP 404", st("404"), http404, true, "HTTP 404"},
		{"HTTP 404 in a list", st("403,404"), http404, true, "HTTP 404"},
		{"HTTP 503 range", st("500-599"), http503Slow, true, "HTTP 503"},
		{"HTTP no response", st("100-599"), httpRefused, false, "no HTTP response"},

		{"command success as 200", st("200"), cmdOK, true, "exit status 0 (as 2xx)"},
		{"command success as 204", st("204"), cmdOK, true, "exit status 0 (as 2xx)"},
		{"command success in a wide range", st("100-599"), cmdOK, true, "exit status 0 (as 2xx)"},
		{"command success is not 404", st("404"), cmdOK, false, "exit status 0 (as 2xx)"},
		{"command success is not 199/300", st("199,300"), cmdOK, false, "exit status 0 (as 2xx)"},
		{"aws 404 (BucketNotExists)", st("404"), cmdAWS404, true, "error code 404 (as HTTP 404)"},
		{"aws 404 is not 200", st("200"), cmdAWS404, false, "error code 404 (as HTTP 404)"},
		{"aws 301 (BucketExists)", st("301"), cmdAWS301, true, "error code 301 (as HTTP 301)"},
		{"aws 301 in 3xx range", st("300-399"), cmdAWS301, true, "error code 301 (as HTTP 301)"},
		{"named code is no status", st("400-599"), cmdThrottled, false, "exit status 254, error code ThrottlingException (no HTTP status)"},
		{"failed without code", st("100-599"), cmdExit3, false, "exit status 3 (no HTTP status)"},
		{"numeric code below 300", st("200"), cmdCode200, false, "exit status 1, error code 200 (no HTTP status)"},
		{"not started", st("100-599"), cmdNotFound, false, "exit status 127 (no HTTP status)"},
		{"timed out", st("100-599"), cmdTimedOut, false, "exit status 143 (no HTTP status)"},
		{"empty codes", StatusMatcher(nil), cmdOK, false, "exit status 0 (as 2xx)"},
	})
}

func TestCommandStatus(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]int{"300": 300, "404": 404, "599": 599} {
		if n, ok := commandStatus(code); !ok || n != want {
			t.Errorf("commandStatus(%q) = %d, %v; want %d, true", code, n, ok, want)
		}
	}
	for _, code := range []string{"", "200", "299", "600", "4040", "40", "+40", "-40", "4x4", "NotFound", "４０４"} {
		if n, ok := commandStatus(code); ok {
			t.Errorf("commandStatus(%q) = %d, true; want false", code, n)
		}
	}
}

func TestMatchersWithoutAttempt(t *testing.T) {
	t.Parallel()
	for name, m := range map[string]Matcher{
		"exit":   ExitMatcher(Codes{{0, 255}}),
		"output": OutputMatcher(regexp.MustCompile(``)),
		"error":  ErrorMatcher("false"),
		"status": StatusMatcher(Codes{{100, 599}}),
	} {
		if r := m.Match(nil); r.Matched {
			t.Errorf("%s matched a nil Env", name)
		}
		if r := m.Match(&Env{}); r.Matched {
			t.Errorf("%s matched an Env without attempt", name)
		}
	}
}

// TestChainBucketWaiters evaluates botocore's S3 BucketExists and
// BucketNotExists acceptors on AWS CLI attempts, as retry wait would.
func TestChainBucketWaiters(t *testing.T) {
	t.Parallel()
	st := func(s string) Matcher { return StatusMatcher(codes(t, ParseStatusCodes, s)) }
	exists := Chain{Fallback: WaitFallback, Acceptors: []Acceptor{
		{State: StateSuccess, Matcher: st("200"), Name: "status 200"},
		{State: StateSuccess, Matcher: st("301"), Name: "status 301"},
		{State: StateSuccess, Matcher: st("403"), Name: "status 403"},
		{State: StateRetry, Matcher: st("404"), Name: "status 404"},
	}}
	notExists := Chain{Fallback: WaitFallback, Acceptors: []Acceptor{
		{State: StateSuccess, Matcher: st("404"), Name: "status 404"},
	}}
	cmd403 := Attempt{Failed: true, ExitCode: 254, ErrorCode: "403"}
	tests := []struct {
		chain *Chain
		a     Attempt
		want  Directive
		by    string
	}{
		{&exists, cmdOK, Succeed, "status 200"},
		{&exists, cmdAWS301, Succeed, "status 301"},
		{&exists, cmd403, Succeed, "status 403"},
		{&exists, cmdAWS404, RetryServer, "status 404"},
		{&exists, cmdThrottled, RetryThrottle, "fallback"},
		{&exists, Attempt{Failed: true, ExitCode: 254, ErrorCode: "AccessDenied"}, Fail, "fallback"},
		{&notExists, cmdAWS404, Succeed, "status 404"},
		{&notExists, cmdOK, RetryServer, "fallback"},
	}
	for _, tt := range tests {
		d := tt.chain.Evaluate(&tt.a)
		if d.Directive != tt.want || d.Name != tt.by {
			t.Errorf("attempt %+v: got %v by %q, want %v by %q", tt.a, d.Directive, d.Name, tt.want, tt.by)
		}
	}
}

// TestChainErrorAcceptors checks the order across matcher kinds, as
// `--retry-error ThrottlingException --failure-error true --success-exit 0`.
func TestChainErrorAcceptors(t *testing.T) {
	t.Parallel()
	c := Chain{Acceptors: []Acceptor{
		{State: StateThrottle, Matcher: ErrorMatcher("ThrottlingException"), Name: "--throttle-error ThrottlingException"},
		{State: StateFailure, Matcher: ErrorMatcher("true"), Name: "--failure-error true"},
		{State: StateSuccess, Matcher: ExitMatcher(Codes{{0, 0}}), Name: "--success-exit 0"},
	}}
	for _, tt := range []struct {
		a    Attempt
		want Directive
		val  string
	}{
		{cmdThrottled, RetryThrottle, "ThrottlingException"},
		{cmdExit3, Fail, "no error code"},
		{cmdOK, Succeed, "exit status 0"},
	} {
		d := c.Evaluate(&tt.a)
		if d.Directive != tt.want || d.Value != tt.val {
			t.Errorf("attempt %+v: got %v (%q), want %v (%q)", tt.a, d.Directive, d.Value, tt.want, tt.val)
		}
	}
}
