package backoff

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// durationHelp says what ParseDuration accepts; errors end with it.
const durationHelp = "want seconds (10, 0.5) or a number with a unit ns, us, ms, s, m or h (1.5s, 250ms, 1h2m)"

// ParseDuration reads a delay or budget as users type it: a Go duration
// ("1.5s", "250ms", "1h2m", "0") or a bare decimal number of seconds ("10",
// "0.5", ".25"), as Debian's retry(1) takes them. Surrounding blanks are
// ignored. "0" is allowed.
//
// Errors are short and meant to follow a flag name: an empty string, another
// syntax (exponents, "NaN", "Inf", days, blanks inside), a negative value, or
// one past math.MaxInt64 nanoseconds (about 292 years) is refused.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, errors.New("empty duration: " + durationHelp)
	}
	if isDecimal(t) {
		t += "s"
	}
	d, err := time.ParseDuration(t)
	switch {
	case err == nil && d >= 0:
		return d, nil
	case !isGoDuration(t):
		return 0, fmt.Errorf("%q is not a duration: %s", s, durationHelp)
	case strings.HasPrefix(t, "-"):
		return 0, fmt.Errorf("%q is %w: want 0 or more", s, ErrNegative)
	}
	return 0, fmt.Errorf("%q is %w: the most is %v (about 292 years)", s, ErrTooLong, maxDelay.Truncate(time.Second))
}

// ErrTooLong and ErrNegative are wrapped by ParseDuration's error for a
// duration of valid syntax out of range, so that a caller can say "too
// large" rather than "malformed".
var (
	ErrTooLong  = errors.New("too long")
	ErrNegative = errors.New("negative")
)

// isDecimal reports whether t is a signed decimal number without unit or
// exponent: "10", "-1", "0.5", ".5", "5.".
func isDecimal(t string) bool {
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	n, rest := number(t)
	return n && rest == ""
}

// number strips one unsigned decimal number (digits, an optional point,
// digits; at least one digit) from the front of t.
func number(t string) (ok bool, rest string) {
	i, digits := 0, 0
	for i < len(t) && '0' <= t[i] && t[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(t) && t[i] == '.' {
		i++
		for i < len(t) && '0' <= t[i] && t[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	return digits > 0, t[i:]
}

// isGoDuration reports whether t has the syntax time.ParseDuration reads,
// whatever its size: an optional sign, then "0" or one or more numbers each
// followed by a unit.
func isGoDuration(t string) bool {
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	if t == "0" {
		return true
	}
	if t == "" {
		return false
	}
	for t != "" {
		ok, rest := number(t)
		if !ok {
			return false
		}
		unit := false
		for _, u := range []string{"ns", "us", "µs", "μs", "ms", "s", "m", "h"} {
			if strings.HasPrefix(rest, u) {
				rest, unit = rest[len(u):], true
				break
			}
		}
		if !unit {
			return false
		}
		t = rest
	}
	return true
}
