package acceptor

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxShownMatch bounds the matched text an output matcher shows as its
// Value.
const maxShownMatch = 80

// truncateUTF8 cuts s to at most n bytes at a rune boundary, marking the cut
// with "…". acceptor/errorcode has its twin: a dozen lines are not worth a
// package both would import, and neither imports the other.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// envAttempt returns the attempt of env, nil when there is none.
func envAttempt(env *Env) *Attempt {
	if env == nil {
		return nil
	}
	return env.Attempt
}

// isHTTPAttempt reports whether a has no exit status (an HTTP call, a TCP
// connect, a skipped command): the matchers treat it as an HTTP attempt.
func isHTTPAttempt(a *Attempt) bool { return !a.HasExitCode() }

// ExitMatcher matches a command attempt whose exit status is in codes
// (--success-exit and friends). A timed-out attempt and one that could not
// start (126, 127) are matched on the status they carry. HTTP and TCP
// attempts (no exit status) never match; nor does anything when codes is
// empty. Value is "exit status N".
func ExitMatcher(codes Codes) Matcher {
	return MatcherFunc(func(env *Env) MatchResult {
		a := envAttempt(env)
		if a == nil {
			return MatchResult{}
		}
		if isHTTPAttempt(a) {
			return MatchResult{Value: "no exit status (HTTP)"}
		}
		return MatchResult{Matched: codes.Contains(a.ExitCode), Value: fmt.Sprintf("exit status %d", a.ExitCode)}
	})
}

// OutputMatcher matches an attempt whose stdout window (StdoutTail, the
// response body for HTTP) or stderr window (StderrTail) matches the RE2
// regexp re, stdout first; either counts, whether the attempt failed or not.
// Value is the matched text, quoted and cut to about 80 bytes; Detail names
// the stream. A nil re never matches.
//
// The literals every match of re must contain (regexp/syntax; see
// requiredLiterals) are looked for first: a window without any of them
// cannot match, and the regexp does not run on it. In a Chain, the
// literals of all its output acceptors are found in one pass over each
// window (an Aho-Corasick scan), so 100 patterns over a 1 MiB window read
// it once instead of running 100 regexps over it: bench
// BenchmarkOutputAcceptors, 100 patterns over 1 MiB, about 1.5 ms instead
// of 6 s.
func OutputMatcher(re *regexp.Regexp) Matcher {
	m := &outputMatcher{re: re}
	if re != nil {
		m.lits = requiredLiterals(re)
	}
	return m
}

type outputMatcher struct {
	re   *regexp.Regexp
	lits []string // one of these is in every match; nil: unknown
}

func (m *outputMatcher) Match(env *Env) MatchResult {
	a := envAttempt(env)
	if a == nil || m.re == nil {
		return MatchResult{}
	}
	for i, s := range []struct {
		name string
		tail []byte
	}{{"stdout", a.StdoutTail}, {"stderr", a.StderrTail}} {
		if !env.mayMatch(m, i, s.tail) {
			continue
		}
		if loc := m.re.FindIndex(s.tail); loc != nil {
			return MatchResult{
				Matched: true,
				Value:   strconv.Quote(truncateUTF8(string(s.tail[loc[0]:loc[1]]), maxShownMatch)),
				Detail:  fmt.Sprintf("%s matched %q", s.name, m.re.String()),
			}
		}
	}
	return MatchResult{Value: fmt.Sprintf("no match in %d bytes of stdout, %d of stderr", len(a.StdoutTail), len(a.StderrTail))}
}

// chainLiterals is the one literal scanner of a chain's output acceptors.
type chainLiterals struct {
	scanner *literalScanner
	ids     map[*outputMatcher][]int
}

// newChainLiterals collects the required literals of the output acceptors
// in acc; nil when none has any.
func newChainLiterals(acc []Acceptor) *chainLiterals {
	var lits []string
	ids := map[*outputMatcher][]int{}
	for _, a := range acc {
		m, ok := a.Matcher.(*outputMatcher)
		if !ok || m.lits == nil || ids[m] != nil {
			continue
		}
		for _, l := range m.lits {
			ids[m] = append(ids[m], len(lits))
			lits = append(lits, l)
		}
	}
	if len(lits) == 0 {
		return nil
	}
	sc := newLiteralScanner(lits)
	if sc == nil {
		return nil
	}
	return &chainLiterals{scanner: sc, ids: ids}
}

// mayMatch reports whether window (stream 0: stdout, 1: stderr) holds one
// of m's required literals, scanning each window once per Env for all the
// chain's literals; true when m has none.
func (e *Env) mayMatch(m *outputMatcher, stream int, window []byte) bool {
	if m.lits == nil {
		return true
	}
	ids := []int(nil)
	if e.literals != nil {
		ids = e.literals.ids[m]
	}
	if ids == nil { // outside a chain: look for each literal
		for _, l := range m.lits {
			if bytes.Contains(window, []byte(l)) {
				return true
			}
		}
		return false
	}
	if e.found[stream] == nil {
		e.found[stream] = e.literals.scanner.scan(window)
	}
	for _, id := range ids {
		if e.found[stream][id] {
			return true
		}
	}
	return false
}

// ErrorMatcher matches on the error code of an attempt (--success-error and
// friends, botocore "error" and Smithy "errorType" matchers). code is
// trimmed, and then:
//
//   - "true" matches any failed attempt, with or without an error code;
//   - "false" matches an attempt that did NOT fail (botocore "expected":
//     false, Smithy success: true) — the only error matcher that sees
//     successful attempts;
//   - "timeout" matches an attempt stopped by --attempt-timeout, whatever
//     its exit status (a command killed by the timeout's SIGTERM exits 143,
//     which an exit acceptor would otherwise take for the command's own);
//   - anything else matches a failed attempt whose ErrorCode is exactly
//     code (case matters). A failed HTTP attempt without an error code has
//     its status as code ("404"), as botocore does for bodiless responses.
//
// An empty code never matches. Value is the error code seen, "no error code"
// or "no error".
func ErrorMatcher(code string) Matcher {
	code = strings.TrimSpace(code)
	return MatcherFunc(func(env *Env) MatchResult {
		a := envAttempt(env)
		if a == nil || code == "" {
			return MatchResult{}
		}
		if code == "timeout" {
			if a.TimedOut {
				return MatchResult{Matched: true, Value: "timed out"}
			}
			return MatchResult{Value: "not timed out"}
		}
		if !a.Failed {
			return MatchResult{Matched: code == "false", Value: "no error"}
		}
		seen := effectiveErrorCode(a)
		value := seen
		if value == "" {
			value = "no error code"
		}
		switch code {
		case "true":
			return MatchResult{Matched: true, Value: value}
		case "false":
			return MatchResult{Value: value}
		}
		return MatchResult{Matched: seen == code, Value: value}
	})
}

// effectiveErrorCode is a failed attempt's error code, or for a failed HTTP
// response without one, its status.
func effectiveErrorCode(a *Attempt) string {
	if a.ErrorCode == "" && isHTTPAttempt(a) && a.Status != 0 {
		return strconv.Itoa(a.Status)
	}
	return a.ErrorCode
}

// StatusMatcher matches on the HTTP status of an attempt (--success-status
// and friends, botocore "status" matchers).
//
// An HTTP attempt matches when it got a response whose status is in codes;
// one without a response (a transport error) never matches.
//
// A command attempt has no status, so it is mapped the way the AWS CLI
// reports one: an attempt that did not fail counts as any 2xx status, so it
// matches when codes holds some status in 200–299 (Value "exit status 0 (as
// 2xx)"); a failed attempt whose error code is a number ≥ 300 counts as that
// status (`An error occurred (404)`, `(301) … HeadBucket` of S3
// BucketExists). Other failed commands, timed-out ones and ones that could
// not start never match.
func StatusMatcher(codes Codes) Matcher {
	return MatcherFunc(func(env *Env) MatchResult {
		a := envAttempt(env)
		if a == nil {
			return MatchResult{}
		}
		if isHTTPAttempt(a) {
			if a.Status == 0 {
				return MatchResult{Value: "no HTTP response"}
			}
			return MatchResult{Matched: codes.Contains(a.Status), Value: fmt.Sprintf("HTTP %d", a.Status)}
		}
		if !a.Failed {
			if codes.containsRange(200, 299) {
				return MatchResult{Matched: true, Value: fmt.Sprintf("exit status %d (as 2xx)", a.ExitCode)}
			}
			return MatchResult{Value: fmt.Sprintf("exit status %d (as 2xx)", a.ExitCode)}
		}
		if n, ok := commandStatus(a.ErrorCode); ok {
			return MatchResult{Matched: codes.Contains(n), Value: fmt.Sprintf("error code %s (as HTTP %d)", a.ErrorCode, n)}
		}
		v := fmt.Sprintf("exit status %d", a.ExitCode)
		if a.ErrorCode != "" {
			v += ", error code " + a.ErrorCode
		}
		return MatchResult{Value: v + " (no HTTP status)"}
	})
}

// commandStatus reads a command's error code as an HTTP status: three
// digits, 300–599.
func commandStatus(code string) (int, bool) {
	if len(code) != 3 {
		return 0, false
	}
	n, err := strconv.Atoi(code)
	if err != nil || n < 300 || n > 599 || code[0] == '+' || code[0] == '-' {
		return 0, false
	}
	return n, true
}
