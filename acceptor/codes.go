package acceptor

import (
	"fmt"
	"strconv"
	"strings"
)

// CodeRange is an inclusive range of codes, Lo ≤ Hi. A single code n is
// CodeRange{n, n}.
type CodeRange struct {
	Lo, Hi int
}

// Codes is a set of exit statuses or HTTP statuses, as the user wrote it:
// "0", "1,3", "10-20", "1,3,10-20". The zero value (nil) contains no code.
// Build one with ParseExitCodes or ParseStatusCodes, or literally
// (Codes{{404, 404}}) from a waiter model.
type Codes []CodeRange

// Contains reports whether n is in one of the ranges. Nil or empty Codes
// contain nothing; a range with Lo > Hi contains nothing.
func (c Codes) Contains(n int) bool {
	for _, r := range c {
		if r.Lo <= n && n <= r.Hi {
			return true
		}
	}
	return false
}

// containsRange reports whether some code in lo..hi is in c.
func (c Codes) containsRange(lo, hi int) bool {
	for _, r := range c {
		if r.Lo <= hi && lo <= r.Hi && r.Lo <= r.Hi {
			return true
		}
	}
	return false
}

// String writes the codes the way they are parsed, in their order:
// "1,3,10-20". Nil Codes are "".
func (c Codes) String() string {
	var b strings.Builder
	for i, r := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.Lo))
		if r.Hi != r.Lo {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(r.Hi))
		}
	}
	return b.String()
}

// ParseExitCodes parses exit statuses for --success-exit and friends: a
// comma-separated list of codes and inclusive ranges, "0", "1,3", "10-20",
// "1, 3, 10-20". Blanks around commas and dashes are ignored. Each code is
// 0–255. It refuses an empty list or element, a reversed range ("20-10"), a
// code out of range and anything that is not a decimal number ("+1", "0x1",
// "-1"); the error says what is accepted.
func ParseExitCodes(s string) (Codes, error) {
	return parseCodes(s, codeSyntax{what: "codes", example: "0, 1,3 or 10-20", lo: 0, hi: 255})
}

// ParseStatusCodes parses HTTP statuses for --success-status and friends, in
// the syntax of ParseExitCodes ("200", "200,204", "500-599"); each status is
// 100–599.
func ParseStatusCodes(s string) (Codes, error) {
	return parseCodes(s, codeSyntax{what: "statuses", example: "200, 404,410 or 500-599", lo: 100, hi: 599})
}

type codeSyntax struct {
	what    string // "codes"
	example string // "0, 1,3 or 10-20"
	lo, hi  int
}

func (cs codeSyntax) errorf(format string, args ...any) error {
	return fmt.Errorf("%s; want %s like %s (%d–%d)", fmt.Sprintf(format, args...), cs.what, cs.example, cs.lo, cs.hi)
}

func parseCodes(s string, cs codeSyntax) (Codes, error) {
	if strings.TrimSpace(s) == "" {
		return nil, cs.errorf("no %s given", cs.what)
	}
	var out Codes
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, cs.errorf("empty element in %q", s)
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cs.number(lo, part)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = cs.number(hi, part); err != nil {
				return nil, err
			}
			if b < a {
				return nil, cs.errorf("range %d-%d is reversed (write %d-%d)", a, b, b, a)
			}
		}
		out = append(out, CodeRange{a, b})
	}
	return out, nil
}

// number parses one decimal code of part.
func (cs codeSyntax) number(s, part string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, cs.errorf("%q is not a code or a range", part)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, cs.errorf("%q is not a number", s)
		}
	}
	digits := strings.TrimLeft(s, "0")
	if len(digits) > 9 { // far out of range, and would not fit an int32
		return 0, cs.errorf("%s is out of range", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil { // only digits, at most 9 significant: cannot happen
		return 0, cs.errorf("%q is not a number", s)
	}
	if n < cs.lo || n > cs.hi {
		return 0, cs.errorf("%d is out of range", n)
	}
	return n, nil
}
