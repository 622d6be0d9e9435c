// Package shellwords splits a command string into argv by the POSIX
// shell's word rules, without a shell, refusing what only a shell can do.
package shellwords

import (
	"errors"
	"fmt"
	"strings"
)

// shellHint ends every Split refusal of an operator or an expansion.
const shellHint = "use --shell to run it with /bin/sh"

// globHint ends the refusal of a wildcard or a tilde, which quoting keeps
// literal.
const globHint = "use --shell, or quote it"

// Split splits one command string into argv by the POSIX shell's
// word rules, without a shell: blanks separate words; 'single quotes' keep
// everything literally; "double quotes" keep everything but a backslash
// before $ ` " \ or a newline; an unquoted backslash keeps the next
// character (a backslash-newline joins lines); ” or "" is an empty word.
// Nothing is expanded: no variables, globs or ~.
//
// What only a shell can do is refused with an error that says so and hints
// at --shell: the operators ; & && | || < > ( ) and an unquoted newline,
// command substitution (` and $( outside single quotes), variable and
// parameter expansion ($NAME, ${…}, $1, $?, … outside single quotes), and
// comments (a word starting with #), bash's $'…' quotes, and environment
// assignments before the command (NAME=value cmd), and the unquoted
// wildcards * ? and [ (when a ] closes it in the same word: a lone [, as in
// '[ -f x ]', is literal, as in sh) and a ~ starting a word (a shell would expand them; the
// command would get them literally and, say, delete nothing): quoted or
// escaped, they stay literal. An empty or blank string, and an
// unterminated quote, are errors too.
//
// It is stricter than github.com/mattn/go-shellwords on purpose: that
// package reads "\d" inside double quotes as "d" and an unquoted \t as a
// tab, where a shell keeps "\d" and reads \t as t; a regexp argument would
// silently change.
func Split(s string) ([]string, error) {
	var (
		args   []string
		word   strings.Builder
		have   bool // a word is open (possibly empty, from quotes)
		quoted bool // the open word has a quote or a backslash
	)
	flush := func() {
		if have {
			args = append(args, word.String())
			word.Reset()
			have, quoted = false, false
		}
	}
	refuse := func(what string) ([]string, error) {
		return nil, fmt.Errorf("command string %q has %s: %s", s, what, shellHint)
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch ch {
		case ' ', '\t':
			flush()
		case '\n':
			return refuse("a newline outside quotes (a command separator)")
		case ';', '&', '|', '<', '>', '(', ')':
			op := string(ch)
			if i+1 < len(s) && (s[i+1] == ch && (ch == '&' || ch == '|' || ch == ';' || ch == '<' || ch == '>')) {
				op += string(ch)
			}
			return refuse(fmt.Sprintf("the shell operator %q", op))
		case '`':
			return refuse("a command substitution (`)")
		case '#':
			if !have {
				return refuse("a comment (#)")
			}
			word.WriteByte(ch)
		case '$':
			if what := expansion(s[i+1:]); what != "" {
				return refuse(what)
			}
			if i+1 < len(s) && s[i+1] == '\'' {
				return refuse("an ANSI-C quote ($'…')")
			}
			word.WriteByte(ch)
			have = true
		case '=':
			if len(args) == 0 && !quoted && isName(word.String()) {
				return refuse(fmt.Sprintf("an environment assignment (%s=…)", word.String()))
			}
			word.WriteByte(ch)
			have = true
		case '\\':
			switch {
			case i+1 == len(s):
				word.WriteByte('\\') // a trailing backslash stays, as in sh -c
				have, quoted = true, true
			case s[i+1] == '\n':
				i++ // a line continuation: removed, it opens no word
			default:
				i++
				word.WriteByte(s[i])
				have, quoted = true, true
			}
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("command string has an unterminated single quote")
			}
			word.WriteString(s[i+1 : i+1+end])
			have, quoted = true, true
			i += end + 1
		case '"':
			have, quoted = true, true
			i++
			for ; ; i++ {
				if i == len(s) {
					return nil, errors.New("command string has an unterminated double quote")
				}
				c := s[i]
				if c == '"' {
					break
				}
				switch c {
				case '`':
					return refuse("a command substitution (`)")
				case '$':
					if what := expansion(s[i+1:]); what != "" {
						return refuse(what)
					}
				case '\\':
					if i+1 < len(s) {
						switch s[i+1] {
						case '$', '`', '"', '\\':
							i++
							c = s[i]
						case '\n':
							i++
							continue
						}
					}
				}
				word.WriteByte(c)
			}
		case '[':
			if bracketCloses(s[i+1:]) {
				return nil, fmt.Errorf("command string %q has an unquoted wildcard ([…]), which only a shell expands: %s", s, globHint)
			}
			word.WriteByte(ch) // a [ with no ] after it in its word is literal, as in sh: [ -f x ]
			have = true
		case '*', '?':
			return nil, fmt.Errorf("command string %q has an unquoted wildcard (%c), which only a shell expands: %s", s, ch, globHint)
		case '~':
			if !have {
				return nil, fmt.Errorf("command string %q has a ~ starting a word, which only a shell expands: %s", s, globHint)
			}
			word.WriteByte(ch)
		default:
			word.WriteByte(ch)
			have = true
		}
	}
	flush()
	if len(args) == 0 {
		return nil, errors.New("command string is empty")
	}
	return args, nil
}

// bracketCloses reports whether an unquoted [ followed by rest starts a
// bracket expression, as sh reads a pattern: a ] closes it later in the
// same word, but not as the first character of the set ([]a] and [!]a]
// hold a ]). Quoted and escaped characters inside count as characters of
// the set; a blank or an operator ends the word.
func bracketCloses(rest string) bool {
	first := 0
	if rest != "" && (rest[0] == '!' || rest[0] == '^') {
		first = 1
	}
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; c {
		case ' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')':
			return false
		case '\\':
			i++
		case '\'', '"':
			end := strings.IndexByte(rest[i+1:], c)
			if end < 0 {
				return false
			}
			i += end + 1
		case ']':
			if i > first {
				return true
			}
		}
	}
	return false
}

// isName reports whether w is a shell variable name.
func isName(w string) bool {
	if w == "" || w[0] >= '0' && w[0] <= '9' {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// expansion names the expansion a shell would do for the text after an
// unescaped $, or returns "" when the $ is literal (at the end, before a
// blank or a character that starts nothing).
func expansion(rest string) string {
	if rest == "" {
		return ""
	}
	c := rest[0]
	switch {
	case c == '(':
		return "a command substitution ($()"
	case c == '{':
		return "a parameter expansion (${…})"
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		end := 1
		for end < len(rest) && (rest[end] == '_' || rest[end] >= 'a' && rest[end] <= 'z' ||
			rest[end] >= 'A' && rest[end] <= 'Z' || rest[end] >= '0' && rest[end] <= '9') {
			end++
		}
		return fmt.Sprintf("a variable ($%s), which only a shell expands", rest[:end])
	case c >= '0' && c <= '9', strings.IndexByte("?$!#*@-", c) >= 0:
		return fmt.Sprintf("a special parameter ($%c)", c)
	}
	return ""
}
