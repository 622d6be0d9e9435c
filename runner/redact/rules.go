package redact

import (
	"regexp"
	"strings"
	"sync"
)

// The rules of Text, as regexps: the reference that the scanners of
// scanners.go are held to, and the rules themselves for what the scanners
// leave to them (text.go).

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

// quotedValue finds "Name: value" (headerLine's name) whose value is a
// quoted string on the line, as YAML writes it: password: "S", token: 'S'.
var quotedValue = lazyRegexp{expr: `(^|[\s'"(\[{])([A-Za-z0-9!#$%&*+.^_|~][A-Za-z0-9!#$%&*+.^_|~-]*):([ \t]*)("(?:[^"\\\n]|\\.)*"|'[^'\n]*')`}

// quotedValues hides the quoted value of every quotedValue whose name is
// secret, in its quotes: password: "S" → password: "REDACTED".
func quotedValues(s string) string {
	return quotedValue.get().ReplaceAllStringFunc(s, func(m string) string {
		sub := quotedValue.get().FindStringSubmatch(m)
		if !IsSecretHeader(sub[2]) || hidden(strings.Trim(sub[4], `"'`)) || len(sub[4]) == 2 {
			return m
		}
		return sub[1] + sub[2] + ":" + sub[3] + maskValue(sub[4])
	})
}

// jsonKey finds a JSON (or Python) key and its scalar value on one line:
// "client_secret": "S", 'password': 'S', "token": 12345, or a flat list
// of them: "tokens": ["S1", "S2"]. An object after the key is no value of
// its own: its keys say what is secret.
var jsonKey = lazyRegexp{expr: `("[A-Za-z0-9_. -]+"|'[A-Za-z0-9_. -]+')([ \t]*:[ \t]*)("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\[[^\[\]{}\n]*\]|[^\s,}\]"'{\[][^\s,}\]"']*)`}

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
// "REDACTED", quotes kept; a flat list after it whole), of YAML keys whose
// name is secret (password: "S", quotes kept; a block or a list of
// scalars under the key, line by line), AWS access key IDs, GitHub tokens,
// "token S", and the body of a PEM private key. Only the value goes: the
// name, the separator and the text around stay. Text without any of them
// is returned as is. Text that comes in pieces is redacted by a Stream.
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
	if pairs && strings.IndexByte(s, ':') >= 0 {
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
			s = quotedValues(s)
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
