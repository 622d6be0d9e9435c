package runner

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzSplitCommand checks SplitCommand against a real POSIX shell parser,
// mvdan.cc/sh/v3/syntax (used in tests only, as an oracle), where their
// grammars overlap: when the parser reads the string as one simple command
// of literal words (no expansion, no redirection, no assignment),
// SplitCommand must accept it and split it into the same words. Strings
// with $, `, ~ or # are left out (expansions, tildes and comments, which
// SplitCommand refuses or keeps literal on purpose). It also checks that
// SplitCommand never panics and never returns an empty argv without error.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{
		`echo hello`, `a 'b c' "d e"`, `a "x\"y" 'z\'`, `grep -E "a\d+" file`, `a\ b c`,
		`a "" ''`, "a \\\nb", `x "multi` + "\n" + `line"`, `a | b`, `a; b`, `A=1 b`, `echo $HOME`,
		`a "b`, `  `, `[ -f x ]`, `! a`, `{ a; }`, `a*b ?c [d]`,
	} {
		f.Add(s)
	}
	parser := syntax.NewParser(syntax.Variant(syntax.LangPOSIX))
	f.Fuzz(func(t *testing.T, s string) {
		argv, err := SplitCommand(s)
		if err == nil && len(argv) == 0 {
			t.Fatalf("SplitCommand(%q) = no words, no error", s)
		}
		if strings.ContainsAny(s, "$`~#\r\x00") || strings.HasSuffix(s, "\\") {
			return // a trailing backslash: shells keep it, the parser drops it
		}
		want, ok := simpleLiteralCommand(parser, s)
		if !ok {
			return
		}
		if err != nil && strings.Contains(err.Error(), "newline outside quotes") {
			return // refused on purpose: a newline separates commands
		}
		if err != nil {
			t.Fatalf("SplitCommand(%q) refused a simple command the shell reads as %q: %v", s, want, err)
		}
		if !slices.Equal(argv, want) {
			t.Fatalf("SplitCommand(%q) = %q, the shell reads %q", s, argv, want)
		}
	})
}

// simpleLiteralCommand returns the words of s when the shell parser reads it
// as exactly one simple command of literal words.
func simpleLiteralCommand(p *syntax.Parser, s string) ([]string, bool) {
	file, err := p.Parse(strings.NewReader(s), "")
	if err != nil || len(file.Stmts) != 1 {
		return nil, false
	}
	st := file.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || st.Semicolon.IsValid() {
		return nil, false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, false
	}
	for _, w := range call.Args {
		if !literalWord(w) {
			return nil, false
		}
	}
	// Quote removal, without globbing (no ReadDir) and with nothing to
	// expand: the words as the shell passes them to the command.
	words, err := expand.Fields(&expand.Config{}, call.Args...)
	if err != nil || len(words) != len(call.Args) {
		return nil, false
	}
	return words, true
}

func literalWord(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, in := range x.Parts {
				if _, ok := in.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// FuzzParseRetryAfter: a hint is never negative, whatever the headers say.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", "-1", "1.5", "99999999999999999999999", "Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", " 3 ", ""} {
		f.Add(s, "250")
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, retryAfter, amz string) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		h.Set("X-Amz-Retry-After", amz)
		if d := ParseRetryAfter(h, now); d < 0 {
			t.Fatalf("ParseRetryAfter(%q, %q) = %v < 0", retryAfter, amz, d)
		}
	})
}

// FuzzParseHeaders: an accepted header never holds CR, LF or NUL, in its
// name or its value (a header injection).
func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer x", "X: ", "NoColon", "A: b\r\nInjected: 1", "A\x00: b", "A: b\x00", " A :  b  ", ": v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		h, err := ParseHeaders([]string{line})
		if err != nil {
			return
		}
		for k, vs := range h {
			if strings.ContainsAny(k, "\r\n\x00") {
				t.Fatalf("ParseHeaders(%q) accepted the name %q", line, k)
			}
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("ParseHeaders(%q) accepted the value %q", line, v)
				}
			}
		}
	})
}

// FuzzRedactURL: the password of a URL never survives RedactURL, nor
// RedactText around it, whatever the user, the password, the host and the
// rest hold (a password of 4 bytes or more with a byte found nowhere else).
func FuzzRedactURL(f *testing.F) {
	f.Add("https", "alice", "s3cret", "example.com:8443", "/x?y=1")
	f.Add("http", "u", "pa/ss", "h", "/p@x")
	f.Add("http", "a@b", "p@ss:w", "127.0.0.1", "#frag@x")
	f.Fuzz(func(t *testing.T, scheme, user, pass, host, rest string) {
		if len(pass) < 4 || strings.ContainsAny(pass, " \t\n\"'<>") || strings.ContainsAny(user+host+rest, " \t\n\"'<>") {
			return
		}
		others := scheme + user + host + rest + Redacted + "://@:Get refused"
		if !validScheme(scheme) || strings.IndexFunc(pass, func(r rune) bool { return !strings.ContainsRune(others, r) }) < 0 {
			return // the password must hold a byte found nowhere else, so that finding it means it leaked
		}
		if strings.ContainsAny(host, "/?#@") || strings.ContainsAny(user, "/?#@:") || user == "" {
			return // then the password is not where a URL's password is
		}
		if pass == "xxxxx" {
			return // the mask of the scope store's URLs ("user:xxxxx"), left as is
		}
		if strings.Contains(pass, "@") && strings.ContainsAny(pass, "/?#") {
			// "u:p@/x@h": no reading tells where the authority ends without
			// hiding the host of every "u:p@h/?mail=a@b"; not covered.
			return
		}
		u := scheme + "://" + user + ":" + pass + "@" + host + rest
		if got := RedactURL(u); strings.Contains(got, pass) {
			t.Fatalf("RedactURL(%q) = %q: the password is still there", u, got)
		}
		if strings.IndexFunc(u, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			return // in text, a URL ends at a blank
		}
		if got := RedactText("Get " + u + ": refused"); strings.Contains(got, pass) {
			t.Fatalf("RedactText(%q) = %q: the password is still there", u, got)
		}
	})
}

func validScheme(s string) bool {
	if s == "" || !('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// FuzzRedactHeader: the value of a secret header never survives
// RedactHeader, nor RedactText of its "Name: value" line (for names that do
// not start with "-", which in text are flags: "--idempotency-key: …").
func FuzzRedactHeader(f *testing.F) {
	f.Add("Authorization", "Bearer abcdef")
	f.Add("X-Vault-Token", "s.12345")
	f.Add("X-Trace", "visible")
	f.Fuzz(func(t *testing.T, name, value string) {
		if !isHTTPToken(name) || !IsSecretHeader(name) || len(value) < 4 || strings.Contains(name, value) || Redacted == value {
			return
		}
		h := http.Header{name: {value}}
		for _, vs := range RedactHeader(h) {
			if slices.Contains(vs, value) {
				t.Fatalf("RedactHeader kept %s: %q", name, value)
			}
		}
		if strings.ContainsAny(value, "\n\"'\\") || strings.ContainsAny(name, "'`") || name[0] == '-' || strings.TrimSpace(value) != value || !validHTTPHeaderValue(value) {
			return // not a value a header line in a log can hold whole
		}
		if got := RedactText(name + ": " + value); strings.Contains(got, value) {
			t.Fatalf("RedactText(%q) = %q", name+": "+value, got)
		}
	})
}
