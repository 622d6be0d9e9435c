package runner

import (
	"net/http"
	"net/url"
	"strings"
)

// Redacted replaces a secret in logs, reports and errors.
const Redacted = "REDACTED"

// secretHeaders are the headers whose values RedactHeader hides, in
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

// IsSecretHeader reports whether RedactHeader hides the values of the header
// name (any case): Authorization, Proxy-Authorization, Cookie, Set-Cookie,
// X-Api-Key, X-Auth-Token, X-Amz-Security-Token.
func IsSecretHeader(name string) bool {
	return secretHeaders[http.CanonicalHeaderKey(name)]
}

// RedactHeader returns a copy of h in which every value of a secret header
// (IsSecretHeader) is "REDACTED"; h is not modified. Keys are matched in any
// case. A nil h yields nil.
func RedactHeader(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		if IsSecretHeader(k) {
			red := make([]string, len(vs))
			for i := range red {
				red[i] = Redacted
			}
			out[k] = red
			continue
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// RedactURL returns s with the user information of its authority (user and
// password alike) replaced by "REDACTED@":
// "https://u:p@host/x" → "https://REDACTED@host/x". Everything else is kept
// as written, so it also works on strings url.Parse refuses. A string with
// no "scheme://" prefix is treated as starting with its authority when it
// holds an "@" before the first "/", "?" or "#" (as in "u:p@host/x").
func RedactURL(s string) string {
	start := 0
	if i := strings.Index(s, "://"); i >= 0 && !strings.ContainsAny(s[:i], "/?#@") {
		start = i + len("://")
	}
	end := len(s)
	if i := strings.IndexAny(s[start:], "/?#"); i >= 0 {
		end = start + i
	}
	at := strings.LastIndexByte(s[start:end], '@')
	if at < 0 {
		return s
	}
	return s[:start] + Redacted + s[start+at:]
}

// redactError returns err with its URL redacted when it is a *url.Error
// (net/http names the URL in its errors, user information included), along
// with any *url.Error it wraps. Other errors are returned as they are.
func redactError(err error) error {
	ue, ok := err.(*url.Error)
	if !ok {
		return err
	}
	return &url.Error{Op: ue.Op, URL: RedactURL(ue.URL), Err: redactError(ue.Err)}
}
