package jmes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jmespath/go-jmespath"
)

// This file corrects go-jmespath's reading of an expression where it
// disagrees with the JMESPath specification and its compliance suite, by
// rewriting the expression's text into one the library reads as the
// specification reads the original (the library itself is unchanged):
//
//   - A raw string literal ends at the first ' not escaped by a backslash,
//     a backslash escaping any character ('\\' is the two characters \\;
//     only \' stands for '). The library ends it only at a ' not preceded
//     by a backslash, so '\\' never ends. Raw strings holding a backslash
//     are rewritten as the equivalent JSON literal (`"\\\\"`).
//   - A slice takes at most two colons: [:::] is a syntax error, which the
//     library accepts.
//   - A backquoted literal that is not JSON but is a bare word
//     (`Ready`) is the string "Ready", with a warning, as python jmespath
//     (the AWS CLI's) reads it during the deprecation of that syntax; the
//     library refuses it. It is rewritten as `"Ready"`.
//   - avg([]) is null; the library returns NaN (0/0). Each avg(X) call is
//     rewritten as map(&avg([0]), [[(X)]][?@ != `[[]]`])[0], which calls
//     avg only on a non-empty X (and on every X that is not an array, null
//     included, for avg's type error) and is null otherwise. (X is wrapped
//     twice: a filter projection drops a null element.)
//
// The scanner follows the lexer of the specification (and of python
// jmespath) for the three quoted forms: in '…', `…` and "…" a backslash
// escapes the next character, whatever it is.

// fixedSource is an expression as the library must read it.
type fixedSource struct {
	// lexical is src with the lexical corrections (raw strings, bare
	// words): what the analyses and compile-time checks parse.
	lexical string
	// program adds the avg rewrite: what is evaluated.
	program string
	// warnings says what was read differently from the library, for the
	// user (a bare word in backquotes).
	warnings []string
}

// quotedEnd returns the index just past the quoted form that starts at
// s[i] (a ', ` or "), or -1 when it is not closed.
func quotedEnd(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return -1
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }

// fixSource returns the texts the library must read for src. A slice with
// more than two colons is a syntax error; anything else the library
// reports itself (an unclosed quote is left as it is).
func fixSource(src string) (*fixedSource, error) {
	f := &fixedSource{}
	var b strings.Builder
	type frame struct {
		open   byte
		colons int
	}
	var stack []frame
	for i := 0; i < len(src); {
		c := src[i]
		switch c {
		case '\'', '`', '"':
			end := quotedEnd(src, i)
			if end < 0 {
				b.WriteString(src[i:])
				i = len(src)
				continue
			}
			tok := src[i:end]
			switch {
			case c == '\'' && strings.IndexByte(tok[1:len(tok)-1], '\\') >= 0:
				b.WriteString(jsonLiteral(strings.ReplaceAll(tok[1:len(tok)-1], `\'`, `'`)))
			case c == '`':
				b.WriteString(f.literal(tok))
			default:
				b.WriteString(tok)
			}
			i = end
			continue
		case '[', '(', '{':
			stack = append(stack, frame{open: c})
		case ']', ')', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ':':
			if n := len(stack); n > 0 && stack[n-1].open == '[' {
				stack[n-1].colons++
				if stack[n-1].colons > 2 {
					return nil, fmt.Errorf("invalid JMESPath expression %q: a slice takes at most two colons, [start:stop:step], at offset %d", src, i)
				}
			}
		}
		b.WriteByte(c)
		i++
	}
	f.lexical = b.String()
	f.program = rewriteAvg(f.lexical)
	// A rewriting never turns an expression the library parses into one it
	// does not: where it would (avg(*A), whose argument the library reads
	// only bare; a raw string run into the token after it), the library's
	// own reading is kept, though the specification may refuse it.
	if (f.lexical != src || f.program != f.lexical) && parses(src) {
		switch {
		case !parses(f.lexical):
			f.lexical, f.program, f.warnings = src, src, nil
		case !parses(f.program):
			f.program = f.lexical
		}
	}
	return f, nil
}

// parses reports whether the library parses s (its parser may panic on
// input it does not expect).
func parses(s string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_, err := jmespath.NewParser().Parse(s)
	return err == nil
}

// literal returns the text of the backquoted literal tok for the library:
// tok itself when its content is JSON; a bare word (content that is not
// JSON, but is once put in double quotes after its leading blanks are
// dropped, as python jmespath reads it) as the JSON string, with a
// warning.
func (f *fixedSource) literal(tok string) string {
	content := strings.ReplaceAll(tok[1:len(tok)-1], "\\`", "`")
	if json.Valid([]byte(content)) {
		return tok
	}
	quoted := `"` + strings.TrimLeft(content, " \t\n\r") + `"`
	var s string
	if json.Unmarshal([]byte(quoted), &s) != nil {
		return tok // not a bare word either: the library's syntax error
	}
	f.warnings = append(f.warnings, fmt.Sprintf("the JMESPath literal %s is not JSON: it is read as the string %s, a deprecated syntax (python jmespath's too); write `%s`", tok, quoted, quoted))
	return "`" + strings.ReplaceAll(quoted, "`", "\\`") + "`"
}

// jsonLiteral writes s as a backquoted JSON string literal.
func jsonLiteral(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return "`" + strings.ReplaceAll(strings.TrimSuffix(b.String(), "\n"), "`", "\\`") + "`"
}

// rewriteAvg rewrites each call avg(X) of s (quoted forms left alone) as
// map(&avg([0]), [[(X)]][?@ != `[[]]`])[0]; X is rewritten too. A call whose
// parenthesis is not closed, or that does not have one argument, is left as
// it is, for the library's error.
func rewriteAvg(s string) string {
	if !strings.Contains(s, "avg") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '`' || c == '"':
			end := quotedEnd(s, i)
			if end < 0 {
				end = len(s)
			}
			b.WriteString(s[i:end])
			i = end
			continue
		case isIdentStart(c) && (i == 0 || !isIdentChar(s[i-1])):
			j := i
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			k := j
			for k < len(s) && strings.IndexByte(" \t\n\r", s[k]) >= 0 {
				k++
			}
			if s[i:j] == "avg" && k < len(s) && s[k] == '(' {
				if end := closingParen(s, k); end > 0 && oneArgument(s[k+1:end]) {
					b.WriteString("map(&avg([0]), [[(")
					b.WriteString(rewriteAvg(s[k+1 : end]))
					b.WriteString(")]][?@ != `[[]]`])[0]")
					i = end + 1
					continue
				}
			}
			b.WriteString(s[i:j])
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// oneArgument reports whether args, the text between a call's parentheses,
// is one argument: not blank, no comma outside brackets and quoted forms.
// (A call with another number of arguments is left for the library's arity
// error.)
func oneArgument(args string) bool {
	if strings.TrimSpace(args) == "" {
		return false
	}
	depth := 0
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case '\'', '`', '"':
			end := quotedEnd(args, i)
			if end < 0 {
				return false
			}
			i = end - 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				return false
			}
		}
	}
	return true
}

// closingParen returns the index of the ) that closes the ( at s[open],
// skipping quoted forms; -1 when there is none.
func closingParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\'', '`', '"':
			end := quotedEnd(s, i)
			if end < 0 {
				return -1
			}
			i = end - 1
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
