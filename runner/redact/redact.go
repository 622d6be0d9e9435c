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
	"slices"
	"strings"
	"sync"
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

// The regexps below compile on first use: a run that logs nothing (-q)
// never pays for them at start-up.

// lazyRegexp is a regexp compiled on its first use (get). A package-level
// lazyRegexp{expr: …} is static data: no code runs for it at start-up,
// where a sync.OnceValue closure would be built for each.
type lazyRegexp struct {
	once sync.Once
	expr string
	re   *regexp.Regexp
}

// get returns the compiled regexp. acceptor/errorcode has its twin: ten lines are not
// worth a package both would import, and neither imports the other.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// urlToken finds URLs in text: a scheme, "://", and everything up to a blank
// or a quote.
var urlToken = lazyRegexp{expr: `[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]*`}

// credential finds "Bearer S" and "Basic S" (any case).
var credential = lazyRegexp{expr: `(?i)\b(bearer|basic)([ \t]+)[A-Za-z0-9\-._~+/]+=*`}

// headerLine finds "Name: value" where Name starts a line, a quoted string
// or a word; the value runs to the end of the line or of the quote.
var headerLine = lazyRegexp{expr: `(^|[\s'"(\[{])([A-Za-z0-9!#$%&*+.^_|~][A-Za-z0-9!#$%&*+.^_|~-]*):([ \t]*)([^\n"'\\]*)`}

// assignment finds NAME=VALUE and NAME = VALUE (blanks around "=" on one
// line): --api-key=S, GITHUB_TOKEN=S, aws_secret_access_key = S, a=1&token=S.
// NAME follows the start, a blank, a quote or punctuation other than "-",
// "." and "_" (which belong to names); the value is a quoted string on the
// line or runs to a blank, a quote, "&", ";" or ",", and does not start
// with "=" (NAME == VALUE is a comparison).
var assignment = lazyRegexp{expr: `(^|[^A-Za-z0-9_.\-])(-{0,2}[A-Za-z_][A-Za-z0-9_.-]*)([ \t]*=[ \t]*)("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"'&,;=][^\s"'&,;]*)`}

// jsonKey finds a JSON (or Python) key and its scalar value on one line:
// "client_secret": "S", 'password': 'S', "token": 12345.
var jsonKey = lazyRegexp{expr: `("[A-Za-z0-9_. -]+"|'[A-Za-z0-9_. -]+')([ \t]*:[ \t]*)("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s,}\]"']+)`}

// escapedJSONKey finds a JSON key and its string value escaped once more,
// as a shell string or a JSON string holding JSON writes them:
// \"client_secret\": \"S\".
var escapedJSONKey = lazyRegexp{expr: `(\\"[A-Za-z0-9_. -]+\\")([ \t]*:[ \t]*)(\\"(?:[^"\\\n]|\\\\[^"\n])*\\")`}

// accessKey finds an AWS access key ID on its own: AKIA (a user's) or
// ASIA (temporary credentials) and 16 upper-case letters or digits.
var accessKey = lazyRegexp{expr: `\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`}

// githubToken finds a GitHub token by its prefix: ghp_ (personal), gho_
// (OAuth), ghu_ and ghs_ (apps), ghr_ (refresh) and github_pat_
// (fine-grained).
var githubToken = lazyRegexp{expr: `\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})\b`}

// tokenWord finds "token S" (any case), GitHub's and many tools' way of
// giving a credential ("Authorization: token S", "vault login token S").
// S must look like one (tokenValue), so that prose ("the token expired")
// stays.
var tokenWord = lazyRegexp{expr: `(?i)\b(token)([ \t]+)([A-Za-z0-9\-._~+/]+=*)`}

// tokenValue reports whether v, after the word token, looks like a
// credential rather than a word: 8 characters or more with a digit, or 20
// or more.
func tokenValue(v string) bool {
	return len(v) >= 20 || len(v) >= 8 && strings.ContainsAny(v, "0123456789")
}

// privateKey finds the body of a PEM private key block.
var privateKey = lazyRegexp{expr: `(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)[^-]*(-----END [A-Z0-9 ]*PRIVATE KEY-----)`}

// Text hides the secrets in text that retry writes or repeats (a log line,
// an error, a usage message, a command's output replayed, a failure body):
// the user information and secret query parameters of every URL in it
// (URL), "Bearer S" and "Basic S" credentials, the value of every
// "Name: value" header or pair whose name is secret (IsSecretHeader), of
// every NAME=VALUE and NAME = VALUE whose name is secret (isSecretName:
// GITHUB_TOKEN=S, api_token=S, aws_secret_access_key = S), of every JSON
// key whose name is secret ("client_secret": "S" → "client_secret":
// "REDACTED", quotes kept), and the body of a PEM private key. Only the
// value goes: the name, the separator and the text around stay. Text
// without any of them is returned as is.
func Text(s string) string { return text(s, true) }

// textRegexp is text by the regexps, applied in turn to the whole of s:
// the reference the line-by-line scanners of text.go are held to
// (FuzzTextScanners), and the way text goes for text holding a PEM private
// key, whose body spans lines.
func textRegexp(s string, pairs bool) string {
	s = urlsRegexp(s)
	if strings.Contains(s, "PRIVATE KEY-----") {
		s = privateKey.get().ReplaceAllString(s, "${1}"+Placeholder+"${2}")
	}
	s = wordsRegexp(s)
	if !mayNameSecret(s) {
		// What is left hides values by their names: text that names no
		// secret (most lines of a command's output) skips the regexps.
		return s
	}
	if pairs && strings.IndexByte(s, ':') >= 0 && strings.IndexByte(s, '\n') >= 0 {
		s = yamlBlocks(s)
	}
	return pairsRegexp(s, pairs)
}

// urlsRegexp hides the secrets of every URL in s (URL).
func urlsRegexp(s string) string {
	if strings.Contains(s, "://") {
		s = urlToken.get().ReplaceAllStringFunc(s, URL)
	}
	return s
}

// wordsRegexp hides the secrets that text gives by their shape: Bearer and
// Basic credentials, AWS access key IDs, GitHub tokens, "token S".
func wordsRegexp(s string) string {
	if mayHoldCredential(s) {
		s = credential.get().ReplaceAllString(s, "${1}${2}"+Placeholder)
	}
	if strings.Contains(s, "AKIA") || strings.Contains(s, "ASIA") {
		s = accessKey.get().ReplaceAllString(s, Placeholder)
	}
	if strings.Contains(s, "gh") && strings.IndexByte(s, '_') >= 0 {
		s = githubToken.get().ReplaceAllString(s, Placeholder)
	}
	if mayHoldTokenWord(s) {
		s = tokenWord.get().ReplaceAllStringFunc(s, func(m string) string {
			sub := tokenWord.get().FindStringSubmatch(m)
			if !tokenValue(sub[3]) || sub[3] == Placeholder {
				return m
			}
			return sub[1] + sub[2] + Placeholder
		})
	}
	return s
}

// pairsRegexp hides the values of secret names on the lines of s:
// "Name: value" headers, JSON keys and JSON keys escaped once more (when
// pairs), NAME=VALUE and NAME = VALUE.
func pairsRegexp(s string, pairs bool) string {
	if pairs && strings.IndexByte(s, ':') >= 0 {
		s = headerLine.get().ReplaceAllStringFunc(s, func(m string) string {
			sub := headerLine.get().FindStringSubmatch(m)
			if !IsSecretHeader(sub[2]) || sub[4] == "" || sub[4] == Placeholder {
				return m
			}
			return sub[1] + sub[2] + ":" + sub[3] + Placeholder
		})
		if strings.ContainsAny(s, `"'`) {
			s = jsonKey.get().ReplaceAllStringFunc(s, func(m string) string {
				sub := jsonKey.get().FindStringSubmatch(m)
				if !isSecretName(sub[1][1 : len(sub[1])-1]) {
					return m
				}
				return sub[1] + sub[2] + maskValue(sub[3])
			})
		}
		s = escapedJSONKeys(s)
	}
	if strings.IndexByte(s, '=') >= 0 {
		s = assignments(s)
	}
	return s
}

// escapedJSONKeys hides the values of secret JSON keys escaped once more
// (escapedJSONKey).
func escapedJSONKeys(s string) string {
	if !strings.Contains(s, `\"`) {
		return s
	}
	return escapedJSONKey.get().ReplaceAllStringFunc(s, func(m string) string {
		sub := escapedJSONKey.get().FindStringSubmatch(m)
		if !isSecretName(sub[1][2 : len(sub[1])-2]) {
			return m
		}
		return sub[1] + sub[2] + `\"` + Placeholder + `\"`
	})
}

// mayNameSecret reports whether s, lowercased, holds a secret word or
// name (secretWords, secretNames, wellKnown): every name that isSecretName
// or IsSecretHeader accepts does, so text without one has no value for
// headerLine, jsonKey, escapedJSONKey or the assignments to hide.
func mayNameSecret(s string) bool {
	l := strings.ToLower(s)
	for _, w := range secretWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	for _, names := range [][]string{secretNames, wellKnown} {
		for _, n := range names {
			if strings.Contains(l, n) {
				return true
			}
		}
	}
	return false
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

// mayHoldTokenWord reports whether s may hold a match of tokenWord: "token"
// in any ASCII case, or a non-ASCII byte (case folding matches the Kelvin
// sign for 'k').
func mayHoldTokenWord(s string) bool {
	for i := 0; i+5 <= len(s); i++ {
		switch {
		case s[i] >= 0x80:
			return true
		case s[i]|0x20 == 't' && strings.EqualFold(s[i:i+5], "token"):
			return true
		}
	}
	return false
}

// assignments hides the values of secret NAME=VALUE pairs in s, outside
// URLs (URL hid their secret parameters already; "#k=v" after one stays).
func assignments(s string) string {
	ms := assignment.get().FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var urls [][]int
	if strings.Contains(s, "://") {
		urls = urlToken.get().FindAllStringIndex(s, -1)
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		name := s[m[4]:m[5]]
		if !isSecretName(name) || inside(urls, m[4]) || hidden(s[m[8]:m[9]]) {
			continue
		}
		b.WriteString(s[last:m[8]])
		b.WriteString(maskValue(s[m[8]:m[9]]))
		last = m[9]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// hidden reports whether a value is the placeholder already, with the
// punctuation that follows it in a sentence ("REDACTED:", "REDACTED]").
func hidden(v string) bool {
	rest, ok := strings.CutPrefix(v, Placeholder)
	return ok && strings.Trim(rest, ":.)]}") == ""
}

// inside reports whether offset i is inside one of spans.
func inside(spans [][]int, i int) bool {
	for _, sp := range spans {
		if sp[0] <= i && i < sp[1] {
			return true
		}
	}
	return false
}

// maskValue is the placeholder in place of a value, in the value's quotes
// when it has them.
func maskValue(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[:1] + Placeholder + v[:1]
	}
	if v == "\"\"" || v == "''" {
		return v
	}
	return Placeholder
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

// attachedUser hides the password of "-uUSER:PASSWORD".
func attachedUser(a string) (string, bool) {
	if len(a) < 4 || a[0] != '-' || (a[1] != 'u' && a[1] != 'U') {
		return "", false
	}
	u, p, ok := strings.Cut(a[2:], ":")
	if !ok || p == "" || u == "" || strings.HasPrefix(p, "//") {
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
