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
	"slices"
	"strings"
)

// Placeholder replaces a secret in logs, reports and errors.
const Placeholder = "REDACTED"

// ascii reports whether s is ASCII text.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// IsSecretHeader reports whether Header hides the values of the header
// name (any case): Authorization, Proxy-Authorization, Cookie, Set-Cookie,
// X-Api-Key, X-Auth-Token, X-Amz-Security-Token, and every name that looks
// secret: one that contains auth, token, key, secret, passw, pwd, signature,
// session, cookie or credential, or is sig, pass or jwt (X-Goog-Api-Key,
// Private-Token, X-Vault-Token, X-Auth…; Idempotency-Key too).
func IsSecretHeader(name string) bool {
	// Each of the headers named holds a secret word (TestSecretNames):
	// the name rule is the whole rule, without a canonical copy of name.
	return isSecretName(name)
}

// The name lists of this file are slices, static data, not maps: a map
// literal is built by package initialisation at every start of retry.

// secretWords are the parts of a name that make a header, a query
// parameter, a NAME=VALUE pair or a JSON key secret.
var secretWords = []string{"auth", "token", "key", "secret", "passw", "pwd", "signature", "session", "cookie", "credential"}

// secretNames are short names that are secret whole: sig=…, pass=…, jwt=….
var secretNames = []string{"sig", "pass", "jwt"}

// wellKnown are variables that hold secrets although no secret word is in
// their names (a DSN or a webhook URL carries its credential in the URL's
// path or user information). The usual ones are secret by their words
// already: GITHUB_TOKEN, GH_TOKEN, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// ACTIONS_RUNTIME_TOKEN, NPM_TOKEN, PGPASSWORD, MYSQL_PWD, VAULT_TOKEN.
var wellKnown = []string{"sentry_dsn", "slack_webhook_url", "database_url", "dsn"}

// isSecretName reports whether a variable, parameter or key name (any
// case, leading dashes ignored) looks like it holds a secret: it contains
// auth, token, key, secret, passw, pwd, signature, session, cookie or
// credential (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, api_key, client_secret,
// PGPASSWORD), or it is sig, pass, jwt, or a well-known variable whose
// name says nothing (SENTRY_DSN, SLACK_WEBHOOK_URL, DATABASE_URL). It errs
// on the side of hiding: Idempotency-Key and monkey=1 are hidden too. An
// empty name is not secret.
func isSecretName(name string) bool {
	for name != "" && name[0] == '-' {
		name = name[1:]
	}
	if ascii(name) {
		return secretNameASCII(name)
	}
	return secretNameLower(name)
}

// secretNameLower is isSecretName on name without its leading dashes, by
// its lower-case copy.
func secretNameLower(name string) bool {
	n := strings.ToLower(name)
	if slices.Contains(secretNames, n) || slices.Contains(wellKnown, n) {
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
	if i := indexOf(s[start:], "/?#"); i >= 0 {
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
	return redactQuery(redactPathParams(s, start))
}

// redactPathParams hides the values of secret path parameters in URL s,
// whose authority starts at start: "/app;jsessionid=S/x" (Java servlets'
// session, RFC 3986's ";name=value" segments) → "/app;jsessionid=REDACTED/x".
func redactPathParams(s string, start int) string {
	end := len(s)
	if i := indexOf(s[start:], "?#"); i >= 0 {
		end = start + i
	}
	if strings.IndexByte(s[start:end], ';') < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := start; i < end; i++ {
		if s[i] != ';' {
			continue
		}
		j := i + 1
		for j < end && s[j] != '=' && s[j] != ';' && s[j] != '/' {
			j++
		}
		if j >= end || s[j] != '=' || !isSecretName(unescapeName(s[i+1:j])) {
			continue
		}
		k := j + 1
		for k < end && s[k] != ';' && s[k] != '/' {
			k++
		}
		if k == j+1 {
			continue
		}
		b.WriteString(s[last : j+1])
		b.WriteString(Placeholder)
		last, i = k, k-1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
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
	params := redactParams(s[q+1 : end])
	if params == s[q+1:end] {
		return s
	}
	return s[:q+1] + params + s[end:]
}

// redactParams hides the secret values in "a=1&token=x;b=2".
func redactParams(q string) string {
	var b strings.Builder
	done := 0 // q[:done] is in b
	for start := 0; start < len(q); {
		end := len(q)
		if i := indexOf(q[start:], "&;"); i >= 0 {
			end = start + i
		}
		if name, _, hasValue := strings.Cut(q[start:end], "="); hasValue && isSecretName(unescapeName(name)) {
			b.WriteString(q[done : start+len(name)+1])
			b.WriteString(Placeholder)
			done = end
		}
		start = end + 1
	}
	if done == 0 {
		return q
	}
	b.WriteString(q[done:])
	return b.String()
}

// indexOf is strings.IndexAny for two or three ASCII bytes, without the
// set IndexAny builds at every call.
func indexOf(s, chars string) int {
	a, b, c := chars[0], chars[1], chars[len(chars)-1]
	for i := 0; i < len(s); i++ {
		if x := s[i]; x == a || x == b || x == c {
			return i
		}
	}
	return -1
}

func unescapeName(n string) string {
	if u, err := url.QueryUnescape(n); err == nil {
		return u
	}
	return n
}

// Argv returns a copy of a command line with its secrets hidden, as
// Text does for each argument; a flag that is a whole --NAME=VALUE with a
// secret name (--api-key=S, blanks in S or not) loses all of its value, and
// so does the argument after a flag with a secret name (--password S,
// --client-secret S, --token S, -token S), unless that argument is itself
// a flag ("--", "--x", "-v"). The password of a user given as USER:PASSWORD
// to -u, --user, -U or --proxy-user (curl, wget) goes too: -u alice:S →
// -u alice:REDACTED, -ualice:S → -ualice:REDACTED. In an argument that is
// a command line of its own (sh -c '…'), the same pairs are hidden.
func Argv(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if i > 0 {
			if v, ok := argValue(argv[i-1], a); ok {
				out[i] = v
				continue
			}
		}
		if u, ok := attachedUser(a); ok {
			out[i] = u
			continue
		}
		// Most arguments hold no "=": they skip the regexp (and its
		// compilation at every start).
		if strings.IndexByte(a, '=') >= 0 {
			if m := wholeAssignment.get().FindStringSubmatch(a); m != nil && isSecretName(m[1]) {
				out[i] = m[1] + "=" + Placeholder
				continue
			}
		}
		if strings.ContainsAny(a, " \t\n") && strings.IndexByte(a, '-') >= 0 {
			a = commandLine(a)
		}
		out[i] = Text(a)
	}
	return out
}

// argValue returns how arg shows after the argument prev: hidden when prev
// is a flag with a secret name or a user flag (Argv); ok is false when
// prev leaves it to the other rules.
func argValue(prev, arg string) (string, bool) {
	if !strings.HasPrefix(prev, "-") || strings.IndexByte(prev, '=') >= 0 || prev == "--" || arg == "" || isFlagLike(arg) {
		return "", false
	}
	if userFlag(prev) {
		if u, p, ok := strings.Cut(arg, ":"); ok && p != "" {
			return u + ":" + Placeholder, true
		}
		return "", false
	}
	if !isSecretName(prev) {
		return "", false
	}
	return Placeholder, true
}

// isFlagLike reports whether an argument is a flag rather than a value:
// "--", "--name…" or a short "-x".
func isFlagLike(a string) bool {
	return strings.HasPrefix(a, "--") || len(a) == 2 && a[0] == '-' && a[1] != '-'
}

// userFlag reports whether a flag takes USER:PASSWORD (curl and wget's
// -u/--user, curl's -U/--proxy-user).
func userFlag(f string) bool {
	switch f {
	case "-u", "--user", "-U", "--proxy-user", "--http-user", "--ftp-user":
		return true
	}
	return false
}

// attachedUser hides the password of "-uUSER:PASSWORD", as argValue does
// for "-u USER:PASSWORD": the same rule for both spellings, so a password
// that starts with "//" goes too (-uA://x → -uA:REDACTED); a tool whose -U
// takes a URL loses that URL's text after the scheme in the echo, the
// safer side.
func attachedUser(a string) (string, bool) {
	if len(a) < 4 || a[0] != '-' || (a[1] != 'u' && a[1] != 'U') {
		return "", false
	}
	u, p, ok := strings.Cut(a[2:], ":")
	if !ok || p == "" || u == "" {
		return "", false
	}
	return a[:2] + u + ":" + Placeholder, true
}

// commandLine hides the flag values (Argv's rules) in a command line
// given as one argument, word by word; the blanks between words stay.
func commandLine(s string) string {
	var b strings.Builder
	prev := ""
	for len(s) > 0 {
		i := strings.IndexFunc(s, func(r rune) bool { return r != ' ' && r != '\t' && r != '\n' })
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		j := strings.IndexAny(s, " \t\n")
		if j < 0 {
			j = len(s)
		}
		w := s[:j]
		s = s[j:]
		shown := w
		q := ""
		if len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0] {
			q = w[:1] // a quoted word: its quotes stay
		}
		if v, ok := argValue(prev, strings.TrimSuffix(strings.TrimPrefix(w, q), q)); ok && (q != "" || !strings.ContainsAny(w, `"'`)) {
			shown = q + v + q
		} else if u, ok := attachedUser(w); ok {
			shown = u
		}
		b.WriteString(shown)
		prev = w
	}
	return b.String()
}

// wholeAssignment is an argument that is --NAME=VALUE whole.
var wholeAssignment = lazyRegexp{expr: `(?s)^(-{1,2}[A-Za-z_][A-Za-z0-9_.-]*)=(.+)$`}

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
