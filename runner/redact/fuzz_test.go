package redact

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// FuzzRedactURL: the password of a URL never survives URL, nor
// Text around it, whatever the user, the password, the host and the
// rest hold (a password of 4 bytes or more with a byte found nowhere else).
func FuzzRedactURL(f *testing.F) {
	f.Add("https", "alice", "s3cret", "example.com:8443", "/x?y=1")
	f.Add("http", "u", "pa/ss", "h", "/p@x")
	f.Add("http", "a@b", "p@ss:w", "127.0.0.1", "#frag@x")
	f.Fuzz(func(t *testing.T, scheme, user, pass, host, rest string) {
		if len(pass) < 4 || strings.ContainsAny(pass, " \t\n\"'<>") || strings.ContainsAny(user+host+rest, " \t\n\"'<>") {
			return
		}
		others := scheme + user + host + rest + Placeholder + "://@:Get refused"
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
		if got := URL(u); strings.Contains(got, pass) {
			t.Fatalf("URL(%q) = %q: the password is still there", u, got)
		}
		if strings.IndexFunc(u, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			return // in text, a URL ends at a blank
		}
		if got := Text("Get " + u + ": refused"); strings.Contains(got, pass) {
			t.Fatalf("Text(%q) = %q: the password is still there", u, got)
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
// Header, nor Text of its "Name: value" line (for names that do
// not start with "-", which in text are flags: "--idempotency-key: …").
func FuzzRedactHeader(f *testing.F) {
	f.Add("Authorization", "Bearer abcdef")
	f.Add("X-Vault-Token", "s.12345")
	f.Add("X-Trace", "visible")
	f.Fuzz(func(t *testing.T, name, value string) {
		if !httpTokenRE.MatchString(name) || !IsSecretHeader(name) || len(value) < 4 || strings.Contains(name, value) || Placeholder == value {
			return
		}
		h := http.Header{name: {value}}
		for _, vs := range Header(h) {
			if slices.Contains(vs, value) {
				t.Fatalf("Header kept %s: %q", name, value)
			}
		}
		if strings.ContainsAny(value, "\n\"'\\") || strings.ContainsAny(name, "'`") || name[0] == '-' || strings.TrimSpace(value) != value || !headerValueRE.MatchString(value) {
			return // not a value a header line in a log can hold whole
		}
		// The value is looked for after the name and its colon, which
		// stay ("Auth0: 0:" keeps "Auth0:"), and not when it is part of
		// the placeholder that replaces it.
		got := Text(name + ": " + value)
		rest, ok := strings.CutPrefix(got, name+":")
		if !ok {
			t.Fatalf("Text(%q) = %q: the header name is gone", name+": "+value, got)
		}
		if strings.Contains(rest, value) && !strings.Contains(Placeholder, value) {
			t.Fatalf("Text(%q) = %q", name+": "+value, got)
		}
	})
}

// The header names and values an HTTP request can carry (RFC 9110: a
// token; a value without control characters but tab), as the HTTP source
// checks them.
var (
	httpTokenRE   = regexp.MustCompile("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$")
	headerValueRE = regexp.MustCompile(`^[^\x00-\x08\x0a-\x1f\x7f]*$`)
)
