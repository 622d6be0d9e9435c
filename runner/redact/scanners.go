package redact

import "strings"

// The scanners of this file find, in a line of ASCII text, what the
// regexps of redact.go find there, match for match: the leftmost match
// first, the next one searched from where it ended, each alternative in
// the regexp's order. Each starts from the byte its matches cannot do
// without (":" or "="), found by strings.IndexByte, and reads the rest of
// the match around it. FuzzTextScanners holds them to the regexps.

// nextURL returns where the first match of urlToken in s at or after from
// starts and ends, or -1, -1. A match is a scheme ([A-Za-z][A-Za-z0-9+.-]*),
// "://", and everything up to a blank, a quote, "<" or ">". at is where
// the first "://" at or after from is, when the caller knows it (scan),
// or unknownURL.
func nextURL(s string, from, at int) (int, int) {
	for {
		i := at
		if i == unknownURL {
			if i = strings.Index(s[from:], "://"); i >= 0 {
				i += from
			}
		}
		at = unknownURL
		if i < 0 {
			return -1, -1
		}
		r := i
		for r > from && isSchemeByte(s[r-1]) {
			r--
		}
		for r < i && !isLetter(s[r]) {
			r++ // the scheme starts with a letter
		}
		if r < i {
			e := i + len("://")
			for e < len(s) && urlByte[s[e]]&urlStop == 0 {
				e++
			}
			return r, e
		}
		from = i + 1
	}
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isSchemeByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '+' || c == '.' || c == '-'
}

// isSpace is the regexps' \s: tab, line feed, form feed, carriage return
// and space (not the vertical tab).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// urlByte sorts bytes for URLs: urlStop ends a URL in text (a blank, a
// quote, "<" or ">"), urlSecret is where URL may hide something ("@",
// ";" and "%" escapes).
var urlByte = [256]byte{
	' ': urlStop, '\t': urlStop, '\n': urlStop, '\f': urlStop, '\r': urlStop,
	'"': urlStop, '\'': urlStop, '<': urlStop, '>': urlStop,
	'@': urlSecret, ';': urlSecret, '%': urlSecret,
}

const (
	urlStop = 1 << iota
	urlSecret
)

// mayHide reports whether URL may change the URL u: it holds "@", ";" or
// "%".
func mayHide(u string) bool {
	for i := 0; i < len(u); i++ {
		if urlByte[u[i]]&urlSecret != 0 {
			return true
		}
	}
	return false
}

// unknownURL says to nextURL that the caller does not know where "://" is.
const unknownURL = -2

// urls is urlToken.ReplaceAllStringFunc(s, URL), for a line s that scan
// read as sc. A URL URL leaves as it is is one without user information
// ("@"), path parameters (";"), escapes ("%") or a secret word in it: it
// skips URL.
func urls(s string, sc *lineScan) string {
	var b strings.Builder
	done := 0
	at := sc.urlAt
	for from := 0; from < len(s); {
		start, end := nextURL(s, from, at)
		if at != unknownURL {
			sc.url = [2]int{start, end} // the first match, for urlCursor
		}
		at = unknownURL
		if start < 0 {
			break
		}
		u := s[start:end]
		plain := (sc.lastWord < start || sc.firstWord >= end) && !mayHide(u)
		if !plain && URL(u) != u {
			b.WriteString(s[done:start])
			b.WriteString(URL(u))
			done = end
		}
		from = end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// urlCursor walks the matches of urlToken in s (nextURL), for offsets
// asked in increasing order.
type urlCursor struct {
	s          string
	at         int    // where the first "://" is, or unknownURL
	first      [2]int // the first match when the caller knows it (urls), else zero
	started    bool
	start, end int // the current match; start is -1 when none is left
}

// covers reports whether offset i is inside a match of urlToken; i is not
// less than at the previous call.
func (u *urlCursor) covers(i int) bool {
	if !u.started {
		u.started = true
		if u.first[1] > 0 {
			u.start, u.end = u.first[0], u.first[1]
		} else {
			u.start, u.end = nextURL(u.s, 0, u.at)
		}
	}
	for u.start >= 0 && u.end <= i {
		u.start, u.end = nextURL(u.s, u.end, unknownURL)
	}
	return u.start >= 0 && u.start <= i
}

// isHeaderByte reports whether c may be in the name of headerLine
// ([A-Za-z0-9!#$%&*+.^_|~-]).
func isHeaderByte(c byte) bool {
	switch c {
	case '!', '#', '$', '%', '&', '*', '+', '.', '^', '_', '|', '~', '-':
		return true
	}
	return isLetter(c) || isDigit(c)
}

// headers is headerLine's replacement in textRegexp: the value of a
// "Name: value" whose name is secret (IsSecretHeader) becomes the
// placeholder. A match is a name that follows the start, a blank, a quote
// or an opening bracket, then ":", blanks and the value, which runs to the
// end of the line, a quote or a backslash.
func headers(s string) string {
	var b strings.Builder
	done, last := 0, 0 // last: where the previous match ended
	for c := 0; ; c++ {
		i := strings.IndexByte(s[c:], ':')
		if i < 0 {
			break
		}
		c += i
		r := c
		for r > last && isHeaderByte(s[r-1]) {
			r--
		}
		if r == c || s[r] == '-' || !(r == 0 && last == 0 || r > last && strings.IndexByte(" \t\n\f\r'\"([{", s[r-1]) >= 0) {
			continue
		}
		v := c + 1
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		e := v
		for e < len(s) && s[e] != '\n' && s[e] != '"' && s[e] != '\'' && s[e] != '\\' {
			e++
		}
		if value := s[v:e]; value != "" && value != Placeholder && IsSecretHeader(s[r:c]) {
			b.WriteString(s[done:v])
			b.WriteString(Placeholder)
			done = e
		}
		last = e
		if e > c {
			c = e - 1
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// quotedEndAt returns the offset just past the string quoted by q that
// starts at s[i] (a q), in which a backslash escapes any byte but a line
// break, or -1 when it does not end on the line. With escapes false, a
// backslash is a byte like any other.
func quotedEndAt(s string, i int, q byte, escapes bool) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case q:
			return j + 1
		case '\n':
			return -1
		case '\\':
			if escapes {
				if j+1 >= len(s) || s[j+1] == '\n' {
					return -1
				}
				j++
			}
		}
	}
	return -1
}

func isKeyByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '.' || c == ' ' || c == '-'
}

// jsonKeys is jsonKey's replacement in textRegexp: the value of a quoted
// key whose name is secret, a quoted string or a bare scalar after ":",
// becomes the placeholder, in its quotes.
func jsonKeys(s string) string {
	var b strings.Builder
	done, last := 0, 0
	for c := 0; ; c++ {
		i := strings.IndexByte(s[c:], ':')
		if i < 0 {
			break
		}
		c += i
		name, ok := quotedKeyBefore(s, last, c)
		if !ok {
			continue
		}
		v := c + 1
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		e := -1
		switch {
		case v == len(s):
		case s[v] == '"' || s[v] == '\'':
			e = quotedEndAt(s, v, s[v], true)
		case s[v] == '[': // a flat list, to its "]"
			for j := v + 1; j < len(s); j++ {
				if c := s[j]; c == ']' {
					e = j + 1
					break
				} else if c == '[' || c == '{' || c == '}' || c == '\n' {
					break
				}
			}
		case s[v] == '{':
		default:
			e = v
			for e < len(s) && !jsonScalarEnds(s[e]) {
				e++
			}
			if e == v {
				e = -1
			}
		}
		if e < 0 {
			continue
		}
		if isSecretName(name) {
			b.WriteString(s[done:v])
			b.WriteString(maskValue(s[v:e]))
			done = e
		}
		last = e
		c = e - 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// quotedKeyBefore returns the name of the quoted key ("name" or 'name',
// of isKeyByte's bytes) that s[:colon] ends in, blanks before the colon
// allowed, when the key starts at from or after.
func quotedKeyBefore(s string, from, colon int) (name string, ok bool) {
	q := colon - 1
	for q >= from && (s[q] == ' ' || s[q] == '\t') {
		q--
	}
	if q < from+1 || s[q] != '"' && s[q] != '\'' {
		return "", false
	}
	o := q - 1
	for o >= from && isKeyByte(s[o]) {
		o--
	}
	if o < from || o == q-1 || s[o] != s[q] {
		return "", false
	}
	return s[o+1 : q], true
}

// jsonScalarEnds reports whether c ends a bare JSON value ([^\s,}\]"']).
func jsonScalarEnds(c byte) bool {
	switch c {
	case ',', '}', ']', '"', '\'':
		return true
	}
	return isSpace(c)
}

// valueEnds reports whether c ends a bare NAME=VALUE value ([^\s"'&,;]).
func valueEnds(c byte) bool { return assignByte[c]&assignValueEnd != 0 }

// isNameByte2 reports whether c may be in the name of NAME=VALUE
// ([A-Za-z0-9_.-]).
func isNameByte2(c byte) bool { return assignByte[c]&assignName != 0 }

// assignByte sorts bytes for appendAssignments (built by scanTables, which
// scan, the caller's first step, runs).
var assignByte [256]byte

const (
	assignName = 1 << iota
	assignValueEnd
)

func assignTables() {
	for c := range 256 {
		b := byte(c)
		if isLetter(b) || isDigit(b) || b == '_' || b == '.' || b == '-' {
			assignByte[c] |= assignName
		}
		if isSpace(b) || strings.IndexByte("\"'&,;", b) >= 0 {
			assignByte[c] |= assignValueEnd
		}
	}
}

// appendAssignments is assignments by a scanner: it appends s to dst with
// the value of every secret NAME=VALUE or NAME = VALUE outside URLs
// replaced by the placeholder, when there is one (ok); otherwise it
// returns dst as it is. sc is what scan found in s: where its first "://"
// is (or unknownURL), where its secret words start. A match is a name ([A-Za-z0-9_.-] bytes after the start
// or another byte, up to two dashes then a letter or "_"), blanks, "=",
// blanks and a value: a double-quoted string (with escapes), a
// single-quoted one, or bytes up to a blank, a quote, "&", ",", ";" that
// do not start with "=".
func appendAssignments(dst []byte, s string, sc lineScan) (out []byte, ok bool) {
	b := dst
	in := urlCursor{s: s, at: sc.urlAt, first: sc.url}
	done, last := 0, 0
	for c := 0; ; c++ {
		i := strings.IndexByte(s[c:], '=')
		if i < 0 {
			break
		}
		c += i
		n := c
		for n > last && (s[n-1] == ' ' || s[n-1] == '\t') {
			n--
		}
		r := n
		for r > last && isNameByte2(s[r-1]) {
			r--
		}
		if r == n || !(r == 0 && last == 0 || r > last) {
			continue
		}
		d := r
		for d < n && d-r < 2 && s[d] == '-' {
			d++
		}
		if d == n || !(isLetter(s[d]) || s[d] == '_') {
			continue
		}
		v := c + 1
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		e := -1
		switch {
		case v == len(s):
		case s[v] == '"':
			e = quotedEndAt(s, v, '"', true)
		case s[v] == '\'':
			e = quotedEndAt(s, v, '\'', false)
		case valueEnds(s[v]) || s[v] == '=':
		default:
			e = v + 1
			for e < len(s) && !valueEnds(s[e]) {
				e++
			}
		}
		if e < 0 {
			continue
		}
		last = e
		c = e - 1
		// A name no secret word starts in (scan found where the first and
		// the last start) is no secret name.
		if n <= sc.firstWord || r > sc.lastWord || !isSecretName(s[r:n]) || hidden(s[v:e]) {
			continue
		}
		if in.covers(r) {
			continue
		}
		if done == 0 && cap(b) < len(s)+len(Placeholder) {
			b = append(make([]byte, 0, len(dst)+max(2*len(s), 512)), dst...) // text's lines reuse it
		}
		b = append(b, s[done:v]...)
		b = append(b, maskValue(s[v:e])...)
		done = e
	}
	if done == 0 {
		return dst, false
	}
	return append(b, s[done:]...), true
}
