// Package redact hides secrets in what retry shows: the user information
// and secret query parameters of URLs, the values of secret headers,
// "Bearer" and "Basic" credentials in text, and NAME=VALUE arguments with
// secret names. The HTTP source (runner/request) redacts its errors and
// report details with it, cmd its logs, reports and usage messages. It
// imports no project package.
package redact

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Placeholder replaces a secret in logs, reports and errors.
const Placeholder = "REDACTED"

// secretHeaders are the headers whose values Header hides, in
// canonical form.
var secretHeaders = map[string]bool{
	"Authorization":        true,
	"Proxy-Authorization":  true,
	"Cookie":               true,
	"Set-Cookie":           true,
	"X-Api-Key":            true,
	"X-Auth-Token":         true,
	"X-Amz-Security-Token": true,
}

// IsSecretHeader reports whether Header hides the values of the header
// name (any case): Authorization, Proxy-Authorization, Cookie, Set-Cookie,
// X-Api-Key, X-Auth-Token, X-Amz-Security-Token, and every name that looks
// secret: one that contains auth, token, key, secret, passw, pwd, signature,
// session, cookie or credential, or is sig, pass or jwt (X-Goog-Api-Key,
// Private-Token, X-Vault-Token, X-Auth…; Idempotency-Key too).
func IsSecretHeader(name string) bool {
	return secretHeaders[http.CanonicalHeaderKey(name)] || isSecretName(name)
}

// secretWords are the parts of a name that make a header, a query
// parameter or a NAME=VALUE argument secret.
var secretWords = []string{"auth", "token", "key", "secret", "passw", "pwd", "signature", "session", "cookie", "credential"}

// secretNames are short names that are secret whole: sig=…, pass=…, jwt=….
var secretNames = map[string]bool{"sig": true, "pass": true, "jwt": true}

// isSecretName reports whether a header, query parameter or variable name
// (any case) looks like it holds a secret: it contains auth, token, key,
// secret, passw, pwd, signature, session, cookie or credential, or it is
// sig, pass or jwt. It errs on the side of hiding: Idempotency-Key and
// monkey=1 are hidden too.
func isSecretName(name string) bool {
	n := strings.ToLower(name)
	if secretNames[n] {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Header returns a copy of h in which every value of a secret header
// (IsSecretHeader) is "REDACTED"; h is not modified. Keys are matched in any
// case. A nil h yields nil.
func Header(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		if IsSecretHeader(k) {
			red := make([]string, len(vs))
			for i := range red {
				red[i] = Placeholder
			}
			out[k] = red
			continue
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// URL returns s with the user information of its authority (user and
// password alike) replaced by "REDACTED@" and the values of query parameters
// with names that look secret (as IsSecretHeader reads them: token, api_key,
// sig, …) replaced by "REDACTED":
// "https://u:p@host/x?token=t&a=1" → "https://REDACTED@host/x?token=REDACTED&a=1".
// Everything else is kept as written, so it also works on strings url.Parse
// refuses, such as a password with an unescaped "/" ("https://u:p/q@host/").
// A string with no "scheme://" prefix is treated as starting with its
// authority when it holds an "@" before the first "/", "?" or "#" (as in
// "u:p@host/x").
func URL(s string) string {
	start := 0
	if i := strings.Index(s, "://"); i >= 0 && !strings.ContainsAny(s[:i], "/?#@") {
		start = i + len("://")
	}
	end := len(s)
	if i := strings.IndexAny(s[start:], "/?#"); i >= 0 {
		end = start + i
	}
	at := strings.LastIndexByte(s[start:end], '@')
	if at < 0 && end < len(s) {
		// A password may hold an unescaped "/", "?" or "#": "u:p/q@host".
		// Then the part before it is "user:…" (or looks like "host:port")
		// and an "@" comes later: hide everything up to the last one.
		// Hiding too much ("http://h:80/a@b") beats leaking.
		if strings.Contains(s[start:end], ":") {
			if i := strings.LastIndexByte(s[end:], '@'); i >= 0 {
				at = end + i - start
			}
		}
	}
	if at >= 0 && !maskedUserInfo(s[start:start+at]) {
		s = s[:start] + Placeholder + s[start+at:]
	}
	return redactQuery(s)
}

// maskedUserInfo reports whether user information already hides its
// password as "user:xxxxx" (the scope store's way of showing a Redis URL),
// or is the placeholder of retry's usage texts ("redis://[USER:PASSWORD@]HOST").
func maskedUserInfo(u string) bool {
	if u == "[USER:PASSWORD" {
		return true
	}
	_, pass, ok := strings.Cut(u, ":")
	return ok && pass == "xxxxx"
}

// redactQuery hides the values of secret parameters in the query of URL s.
func redactQuery(s string) string {
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return s
	}
	end := len(s)
	if i := strings.IndexByte(s[q:], '#'); i >= 0 {
		end = q + i
	}
	var b strings.Builder
	b.WriteString(s[:q+1])
	b.WriteString(redactParams(s[q+1 : end]))
	b.WriteString(s[end:])
	return b.String()
}

// redactParams hides the secret values in "a=1&token=x;b=2".
func redactParams(q string) string {
	var b strings.Builder
	for len(q) > 0 {
		i := strings.IndexAny(q, "&;")
		part, sep := q, ""
		if i >= 0 {
			part, sep, q = q[:i], q[i:i+1], q[i+1:]
		} else {
			q = ""
		}
		name, _, hasValue := strings.Cut(part, "=")
		if hasValue && isSecretName(unescapeName(name)) {
			part = name + "=" + Placeholder
		}
		b.WriteString(part)
		b.WriteString(sep)
	}
	return b.String()
}

func unescapeName(n string) string {
	if u, err := url.QueryUnescape(n); err == nil {
		return u
	}
	return n
}

// The regexps below compile on first use: a run that logs nothing (-q)
// never pays for them at start-up.

// urlToken finds URLs in text: a scheme, "://", and everything up to a blank
// or a quote.
var urlToken = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]*`) })

// credential finds "Bearer S" and "Basic S" (any case).
var credential = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(bearer|basic)([ \t]+)[A-Za-z0-9\-._~+/]+=*`) })

// headerLine finds "Name: value" where Name starts a line, a quoted string
// or a word; the value runs to the end of the line or of the quote.
var headerLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s'"(\[{])([A-Za-z0-9!#$%&*+.^_|~][A-Za-z0-9!#$%&*+.^_|~-]*):([ \t]*)([^\n"'\\]*)`)
})

// assignment finds NAME=VALUE in an argument: --api-key=S, TOKEN=S.
var assignment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s'"])(-{0,2}[A-Za-z_][A-Za-z0-9_.-]*)=([^\s"']*)`)
})

// Text hides the secrets in text that retry writes (a log line, an
// error, a usage message): the user information and secret query
// parameters of every URL in it (URL), "Bearer S" and "Basic S"
// credentials, and the value of every "Name: value" header whose name is
// secret (IsSecretHeader). Text without any of them is returned as is.
func Text(s string) string {
	if strings.Contains(s, "://") {
		s = urlToken().ReplaceAllStringFunc(s, URL)
	}
	if mayHoldCredential(s) {
		s = credential().ReplaceAllString(s, "${1}${2}"+Placeholder)
	}
	if strings.IndexByte(s, ':') >= 0 {
		s = headerLine().ReplaceAllStringFunc(s, func(m string) string {
			sub := headerLine().FindStringSubmatch(m)
			if !IsSecretHeader(sub[2]) || sub[4] == "" || sub[4] == Placeholder {
				return m
			}
			return sub[1] + sub[2] + ":" + sub[3] + Placeholder
		})
	}
	return s
}

// mayHoldCredential reports whether s may hold a match of credential:
// "bearer" or "basic" in any ASCII case, or any non-ASCII byte (the
// regexp's case folding also matches 'ſ' for 's'). Most text (a command
// line being described, a log line) then skips the regexp, and the run its
// compilation.
func mayHoldCredential(s string) bool {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] >= 0x80:
			return true
		case s[i]|0x20 == 'b' && i+5 <= len(s) && (strings.EqualFold(s[i:i+5], "basic") || i+6 <= len(s) && strings.EqualFold(s[i:i+6], "bearer")):
			return true
		}
	}
	return false
}

// Argv returns a copy of a command line with its secrets hidden, as
// Text does for each argument, and also the value of every NAME=VALUE
// whose name is secret (--api-key=S, GITHUB_TOKEN=S in a shell string).
func Argv(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		a = Text(a)
		if strings.IndexByte(a, '=') >= 0 {
			a = assignment().ReplaceAllStringFunc(a, func(m string) string {
				sub := assignment().FindStringSubmatch(m)
				if !isSecretName(strings.TrimLeft(sub[2], "-")) || sub[3] == "" {
					return m
				}
				return sub[1] + sub[2] + "=" + Placeholder
			})
		}
		out[i] = a
	}
	return out
}

// Error returns err with its URL redacted when it is a *url.Error
// (net/http names the URL in its errors, user information included), along
// with any *url.Error it wraps. Other errors are returned as they are.
func Error(err error) error {
	ue, ok := err.(*url.Error)
	if !ok {
		return err
	}
	return &url.Error{Op: ue.Op, URL: URL(ue.URL), Err: Error(ue.Err)}
}
