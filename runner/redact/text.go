package redact

import (
	"strings"
	"sync"
)

// text is Text; with pairs false, "Name: value" and JSON keys are left as
// they are (Message).
//
// It is the rules of textRegexp, applied line by line: every rule but the
// PEM private key's and YAML block values' stays within a line, so one
// pass over each line (scan) says which rules can apply to it, and most
// lines of a command's output, which name no secret, skip all but the URL
// rule. On a line of ASCII text the frequent rules run as scanners
// written for them (urls, headers, jsonKeys, assignmentsScan), each the
// twin of its regexp, match for match (FuzzTextScanners holds text to
// textRegexp); Go's regexp engine, which tries every offset of the text,
// cost 94% of the CPU of repeating a retried attempt's output (bench/
// redact.sh: 24 to 34 times the same build without redaction). The rare
// shapes (Bearer and Basic credentials, access key IDs, GitHub tokens,
// "token S", JSON keys escaped once more) keep their regexps, on the lines
// that hold their words; a line with a byte past ASCII, where the regexps'
// case folding reaches (ſ for s, the Kelvin sign for k), takes the
// regexps whole. Text holding a PEM private key, whose body spans lines,
// takes textRegexp.
func text(s string, pairs bool) string {
	if strings.Contains(s, "PRIVATE KEY-----") {
		return textRegexp(s, pairs)
	}
	var b strings.Builder
	done := 0 // s[:done] is in b
	var y yamlState
	var scratch []byte
	for start := 0; start < len(s); {
		end := len(s)
		if i := strings.IndexByte(s[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		line := s[start:end]
		shown, changed := textLine(line, pairs, &y, scratch[:0])
		if len(changed) > 0 || shown != line {
			if b.Len() == 0 {
				b.Grow(len(s) + 4*len(Placeholder))
			}
			b.WriteString(s[done:start])
			if len(changed) > 0 {
				b.Write(changed)
				scratch = changed
			} else {
				b.WriteString(shown)
			}
			done = end
		}
		start = end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// textLine is text for one line (with its line break, if any); y carries
// a YAML block value from line to line. The line shows as shown, or, when
// the last rule changed it, as the bytes it appended to buf (changed).
func textLine(line string, pairs bool, y *yamlState, buf []byte) (shown string, changed []byte) {
	f := scan(line)
	if f&nonASCII != 0 {
		line = wordsRegexp(urlsRegexp(line))
		if pairs {
			line = y.line(line)
		}
		if mayNameSecret(line) {
			line = pairsRegexp(line, pairs)
		}
		return line, nil
	}
	in := line
	if f&hasURL != 0 {
		line = urls(line)
	}
	if f&(hasCredential|hasAccessKey|hasGH|hasToken) != 0 {
		line = wordsRegexp(line)
	}
	if line != in {
		f = scan(line)
	}
	if pairs && (y.active || f&namesSecret != 0 && f&hasColon != 0) {
		if shown := y.line(line); shown != line {
			return shown, nil // the whole value is hidden: no secret name is left in it
		}
	}
	if f&namesSecret == 0 {
		return line, nil
	}
	if pairs && f&hasColon != 0 {
		line = headers(line)
		if f&hasQuote != 0 {
			line = jsonKeys(line)
		}
		if f&hasEscapedQuote != 0 {
			line = escapedJSONKeys(line)
		}
	}
	if f&hasEq != 0 {
		if buf, ok := appendAssignments(buf, line); ok {
			return "", buf
		}
	}
	return line, nil
}

// What scan finds in a line.
const (
	hasURL          = 1 << iota // "://"
	hasCredential               // "bearer" or "basic", any case
	hasAccessKey                // "AKIA" or "ASIA"
	hasGH                       // "gh" and "_"
	hasToken                    // "token", any case
	namesSecret                 // a secret word or name, any case (mayNameSecret)
	hasColon                    // ":"
	hasQuote                    // a double or single quote
	hasEscapedQuote             // `\"`
	hasEq                       // "="
	nonASCII                    // a byte past ASCII: scan stops there
)

// scan reports, in one pass over s, which rules of text may apply to it.
// It is conservative: a rule it leaves out cannot change s. A table sorts
// the bytes, and a letter is read further only when it and the next byte
// start one of the words (wordStart).
func scan(s string) int {
	scanOnce.Do(scanTables)
	f, gh, underscore := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch scanClass[c] {
		case 0:
		case classLetter:
			if i+1 < len(s) && wordStart[c]>>((s[i+1]|0x20)&31)&1 != 0 {
				f |= foldedWords(s, i)
			}
			switch c {
			case 'A':
				if strings.HasPrefix(s[i:], "AKIA") || strings.HasPrefix(s[i:], "ASIA") {
					f |= hasAccessKey
				}
			case 'g':
				if i+1 < len(s) && s[i+1] == 'h' {
					gh = true
				}
			}
		case classColon:
			f |= hasColon
			if i+2 < len(s) && s[i+1] == '/' && s[i+2] == '/' {
				f |= hasURL
			}
		case classQuote:
			f |= hasQuote
		case classBackslash:
			if i+1 < len(s) && s[i+1] == '"' {
				f |= hasEscapedQuote
			}
		case classEq:
			f |= hasEq
		case classUnderscore:
			underscore = true
		case classHigh:
			return f | nonASCII
		}
	}
	if gh && underscore {
		f |= hasGH
	}
	return f
}

// The classes of bytes for scan.
const (
	classLetter = 1 + iota // may start a word of foldedWords, or is A or g
	classColon
	classQuote
	classBackslash
	classEq
	classUnderscore
	classHigh // past ASCII
)

// scan's tables, built on text's first use (no code runs for them at
// start-up): the class of each byte, and for each letter that starts a
// word of foldedWords, the set of the words' second letters (bit c&31 of a
// lower-case letter c).
var (
	scanOnce  sync.Once
	scanClass [256]byte
	wordStart [256]uint32
)

func scanTables() {
	class, start := &scanClass, &wordStart
	for _, w := range []string{"auth", "bearer", "basic", "cookie", "credential", "dsn", "database_url", "jwt", "key",
		"pass", "pwd", "secret", "session", "sig", "slack_webhook_url", "token"} {
		for _, c := range []byte{w[0], w[0] - 32} {
			class[c] = classLetter
			start[c] |= 1 << (w[1] & 31)
		}
	}
	class['A'], class['g'] = classLetter, classLetter
	class[':'], class['"'], class['\''], class['\\'], class['='], class['_'] = classColon, classQuote, classQuote, classBackslash, classEq, classUnderscore
	for c := 0x80; c < 0x100; c++ {
		class[c] = classHigh
	}
}

// foldedWords reports the words of scan, in any ASCII case, that start at
// s[i]: the secret words and names of isSecretName, "bearer", "basic",
// "token".
func foldedWords(s string, i int) int {
	switch s[i] | 0x20 {
	case 'a':
		return word(s, i, "auth", namesSecret)
	case 'b':
		return word(s, i, "bearer", hasCredential) | word(s, i, "basic", hasCredential)
	case 'c':
		return word(s, i, "cookie", namesSecret) | word(s, i, "credential", namesSecret)
	case 'd':
		return word(s, i, "dsn", namesSecret) | word(s, i, "database_url", namesSecret)
	case 'j':
		return word(s, i, "jwt", namesSecret)
	case 'k':
		return word(s, i, "key", namesSecret)
	case 'p':
		return word(s, i, "pass", namesSecret) | word(s, i, "pwd", namesSecret)
	case 's':
		return word(s, i, "secret", namesSecret) | word(s, i, "session", namesSecret) | word(s, i, "sig", namesSecret) | word(s, i, "slack_webhook_url", namesSecret)
	case 't':
		return word(s, i, "token", namesSecret|hasToken)
	}
	return 0
}

// word is flag when s[i:] starts with w (lower-case letters and "_") in
// any ASCII case.
func word(s string, i int, w string, flag int) int {
	if len(s)-i < len(w) {
		return 0
	}
	for j := 0; j < len(w); j++ {
		c := s[i+j]
		if w[j] == '_' {
			if c != '_' {
				return 0
			}
		} else if c|0x20 != w[j] {
			return 0
		}
	}
	return flag
}
