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
	var st Stream
	b, changed := st.appendLines(nil, s, pairs)
	if !changed {
		return s
	}
	return string(b)
}

// Stream redacts text that comes in pieces of whole lines (a command's
// output repeated as it arrives), as Text redacts it whole: a YAML block
// value whose key came in an earlier piece is hidden still. Its zero value
// is ready to use; it reuses its buffers from piece to piece.
type Stream struct {
	y       yamlState
	scratch []byte // a line changed by its last rule
}

// AppendText appends the piece s, redacted as Text would, to dst. When
// nothing in s is hidden, it returns dst as it is and changed false: s
// shows as it is. A piece that holds a PEM private key is redacted as
// Text redacts it, on its own.
func (st *Stream) AppendText(dst []byte, s string) (out []byte, changed bool) {
	if strings.Contains(s, "PRIVATE KEY-----") {
		st.y = yamlState{}
		if r := textRegexp(s, true); r != s {
			return append(dst, r...), true
		}
		return dst, false
	}
	return st.appendLines(dst, s, true)
}

// appendLines is AppendText for text without a PEM private key.
func (st *Stream) appendLines(dst []byte, s string, pairs bool) (out []byte, changed bool) {
	b := dst
	done := 0 // s[:done] is in b
	for start := 0; start < len(s); {
		end := len(s)
		if i := strings.IndexByte(s[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		line := s[start:end]
		shown, bytes := textLine(line, pairs, &st.y, st.scratch[:0])
		if len(bytes) > 0 || shown != line {
			if !changed {
				changed = true
				if cap(b)-len(b) < len(s)+len(s)/8 {
					b = append(make([]byte, 0, len(dst)+len(s)+len(s)/8+len(Placeholder)), dst...) // a value hidden per line or so
				}
			}
			b = append(b, s[done:start]...)
			if len(bytes) > 0 {
				b = append(b, bytes...)
				st.scratch = bytes
			} else {
				b = append(b, shown...)
			}
			done = end
		}
		start = end
	}
	if !changed {
		return dst, false
	}
	return append(b, s[done:]...), true
}

// textLine is text for one line (with its line break, if any); y carries
// a YAML block value from line to line. The line shows as shown, or, when
// the last rule changed it, as the bytes it appended to buf (changed).
func textLine(line string, pairs bool, y *yamlState, buf []byte) (shown string, changed []byte) {
	sc := scan(line)
	f := sc.flags
	if f&nonASCII != 0 {
		line = wordsRegexp(urlsRegexp(line))
		if pairs {
			line, _ = y.line(line)
		}
		if mayNameSecret(line) {
			line = pairsRegexp(line, pairs)
		}
		return line, nil
	}
	in := line
	if f&hasURL != 0 {
		line = urls(line, &sc)
	}
	if f&(hasCredential|hasAccessKey|hasGH|hasToken) != 0 {
		line = wordsRegexp(line)
	}
	if line != in {
		sc = scan(line)
		f = sc.flags
	}
	if pairs && (y.active || f&secretColon != 0) {
		if shown, whole := y.line(line); whole {
			return shown, nil // the whole line is a hidden value: no secret name is left in it
		} else if shown != line {
			line = shown // a list opened at its end is hidden: the rules go on with the rest
			sc = scan(line)
			f = sc.flags
		}
	}
	if pairs && f&secretColon != 0 {
		in = line
		line = headers(line)
		if f&hasQuote != 0 {
			line = quotedValues(line)
			line = jsonKeys(line)
		}
		if f&hasEscapedQuote != 0 {
			line = escapedJSONKeys(line)
		}
	}
	if f&secretEq != 0 {
		if line != in {
			sc = lineScan{urlAt: unknownURL, firstWord: 0, lastWord: len(line)} // unknown: every name may be secret
		}
		if buf, ok := appendAssignments(buf, line, sc); ok {
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
	// A secret word whose name goes on to ":" or "=" (the name's bytes,
	// then maybe a closing quote, then blanks): only then can a rule that
	// reads NAME: VALUE (headers, JSON keys, YAML keys) or NAME=VALUE
	// (assignments) hide something on the line.
	secretColon
	secretEq
)

// lineScan is what scan finds in a line.
type lineScan struct {
	flags int // the rules that may apply to it
	urlAt int // where the first "://" is; -1: none
	// firstWord and lastWord are where the first and the last secret word
	// or name start (-1: none).
	firstWord, lastWord int
	url                 [2]int // where the first URL starts and ends, once urls found it
}

// scan reports, in one pass over s, which rules of text may apply to it.
// It is conservative: a rule it leaves out cannot change s. A table sorts
// the bytes, and a letter is read further only when it and the next byte
// start one of the words (wordStart).
func scan(s string) lineScan {
	scanOnce.Do(scanTables)
	f, urlAt, firstWord, lastWord := 0, -1, -1, -1
	nameEnd := -1 // where the name of the last secret word found goes on to
	for i := 0; i < len(s); i++ {
		c := s[i]
		k := scanClass[c]
		if k == 0 {
			if wordStart[c] == 0 || i+1 == len(s) || wordStart[c]>>((s[i+1]|0x20)&31)&1 == 0 {
				continue
			}
			w := foldedWords(s, i)
			if w&namesSecret != 0 {
				if firstWord < 0 {
					firstWord = i
				}
				lastWord = i
				if i >= nameEnd {
					var follows int
					nameEnd, follows = nameFollows(s, i)
					f |= follows
				}
			}
			f |= w
			continue
		}
		switch k {
		case classColon:
			f |= hasColon
			if f&hasURL == 0 && i+2 < len(s) && s[i+1] == '/' && s[i+2] == '/' {
				f |= hasURL
				urlAt = i
			}
		case classQuote:
			f |= hasQuote
		case classBackslash:
			if i+1 < len(s) && s[i+1] == '"' {
				f |= hasEscapedQuote
			}
		case classEq:
			f |= hasEq
		case classHigh:
			return lineScan{flags: f | nonASCII, urlAt: -1, firstWord: -1, lastWord: -1}
		}
	}
	if f&hasGH != 0 && strings.IndexByte(s, '_') < 0 {
		f &^= hasGH // "gh" alone
	}
	return lineScan{flags: f, urlAt: urlAt, firstWord: firstWord, lastWord: lastWord}
}

// nameFollows reads the name that goes on from s[i] (a secret word): it
// returns where its bytes end (at ":", "=", a quote, a tab or a line
// break: the bytes of every rule's names and more) and secretColon or
// secretEq when, after a closing quote and blanks maybe, ":" or "="
// follows.
func nameFollows(s string, i int) (end, flag int) {
	j := i
	for j < len(s) && !nameStops(s[j]) {
		j++
	}
	end = j
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j < len(s) {
		switch s[j] {
		case ':':
			flag = secretColon
		case '=':
			flag = secretEq
		}
	}
	return end, flag
}

func nameStops(c byte) bool {
	switch c {
	case ':', '=', '"', '\'', '\t', '\n':
		return true
	}
	return false
}

// The classes of bytes for scan.
const (
	classColon = 1 + iota
	classQuote
	classBackslash
	classEq
	classHigh // past ASCII
)

// scan's tables, built on text's first use (no code runs for them at
// start-up): the class of each byte but letters, and for each letter that
// starts a word of foldedWords, the set of the words' second letters (bit
// c&31 of a lower-case letter c; bit 0, which no letter gives, is never set).
var (
	scanOnce  sync.Once
	scanClass [256]byte
	wordStart [256]uint32
)

func scanTables() {
	for _, w := range []string{"auth", "bearer", "basic", "cookie", "credential", "dsn", "database_url", "jwt", "key",
		"pass", "pwd", "secret", "session", "sig", "slack_webhook_url", "token", "sentry_dsn"} {
		for _, c := range []byte{w[0], w[0] - 32} {
			wordStart[c] |= 1 << (w[1] & 31)
		}
	}
	scanClass[':'], scanClass['"'], scanClass['\''], scanClass['\\'], scanClass['='] = classColon, classQuote, classQuote, classBackslash, classEq
	wordStart['A'] |= 1<<('k'&31) | 1<<('s'&31)
	wordStart['g'] |= 1 << ('h' & 31)
	for c := 0x80; c < 0x100; c++ {
		scanClass[c] = classHigh
	}
	assignTables()
}

// foldedWords reports the words of scan that start at s[i] (which is not
// the last byte): the secret words and names of isSecretName, "bearer",
// "basic", "token" in any ASCII case; "AKIA", "ASIA" and "gh" as written.
func foldedWords(s string, i int) int {
	switch s[i] | 0x20 {
	case 'a':
		if strings.HasPrefix(s[i:], "AKIA") || strings.HasPrefix(s[i:], "ASIA") {
			return hasAccessKey
		}
		return word(s, i, "auth", namesSecret)
	case 'b':
		return word(s, i, "bearer", hasCredential) | word(s, i, "basic", hasCredential)
	case 'c':
		return word(s, i, "cookie", namesSecret) | word(s, i, "credential", namesSecret)
	case 'd':
		return word(s, i, "dsn", namesSecret) | word(s, i, "database_url", namesSecret)
	case 'g':
		if s[i] == 'g' && s[i+1] == 'h' {
			return hasGH // scan wants a "_" too
		}
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

// secretNameASCII is isSecretName on ASCII text without leading dashes
// (secretNameLower), in one pass and without a lower-case copy: the echo
// asks it of every name in NAME=VALUE, "Name: value" and a URL's query on
// the lines that name a secret.
func secretNameASCII(n string) bool {
	scanOnce.Do(scanTables)
	for i := 0; i+1 < len(n); i++ {
		if wordStart[n[i]]>>((n[i+1]|0x20)&31)&1 == 0 {
			continue
		}
		var whole bool // n is one of the names that are secret whole
		switch n[i] | 0x20 {
		case 'a':
			if word(n, i, "auth", 1) != 0 {
				return true
			}
		case 'c':
			if word(n, i, "cookie", 1)|word(n, i, "credential", 1) != 0 {
				return true
			}
		case 'd':
			whole = len(n) == 3 && word(n, 0, "dsn", 1) != 0 || len(n) == 12 && word(n, 0, "database_url", 1) != 0
		case 'j':
			whole = len(n) == 3 && word(n, 0, "jwt", 1) != 0
		case 'k':
			if word(n, i, "key", 1) != 0 {
				return true
			}
		case 'p':
			if word(n, i, "passw", 1)|word(n, i, "pwd", 1) != 0 {
				return true
			}
			whole = len(n) == 4 && word(n, 0, "pass", 1) != 0
		case 's':
			if word(n, i, "secret", 1)|word(n, i, "session", 1)|word(n, i, "signature", 1) != 0 {
				return true
			}
			whole = len(n) == 3 && word(n, 0, "sig", 1) != 0 || len(n) == 10 && word(n, 0, "sentry_dsn", 1) != 0 ||
				len(n) == 17 && word(n, 0, "slack_webhook_url", 1) != 0
		case 't':
			if word(n, i, "token", 1) != 0 {
				return true
			}
		}
		if whole {
			return true
		}
	}
	return false
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
