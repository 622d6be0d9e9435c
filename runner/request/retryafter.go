package request

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// parseRetryAfter returns the server's retry-after hint in h, relative to now.
//
// It reads two headers and returns the longer valid hint:
//   - Retry-After (RFC 9110): a number of seconds ("120") or an HTTP date in
//     any of the three formats http.ParseTime accepts (RFC 1123
//     "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850 "Sunday, 06-Nov-94 08:49:37
//     GMT", ANSI C "Sun Nov  6 08:49:37 1994"), the two-digit year of RFC 850
//     read as RFC 9110 says (parseHTTPDate);
//   - x-amz-retry-after: a number of milliseconds.
//
// Garbage (fractions, signs other than none, unknown date formats), negative
// numbers, zero and dates at or before now are no hint and yield 0. A number
// too large for a time.Duration is clamped to the largest one (the strategy
// caps hints with --max-retry-after anyway). A nil h yields 0.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	var hint time.Duration
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if n, ok := retryAfterDigits(v); ok {
			hint = retryAfterDuration(n, time.Second)
		} else if t, err := parseHTTPDate(v, now); err == nil && t.After(now) {
			hint = t.Sub(now)
		}
	}
	if v := strings.TrimSpace(h.Get("X-Amz-Retry-After")); v != "" {
		if n, ok := retryAfterDigits(v); ok {
			hint = max(hint, retryAfterDuration(n, time.Millisecond))
		}
	}
	return hint
}

// retryAfterDigits parses a string of ASCII digits only (no sign, no blank). A
// number beyond uint64 reports ok with math.MaxUint64.
func retryAfterDigits(s string) (uint64, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil { // only a range error is left
		return math.MaxUint64, true
	}
	return n, true
}

// retryAfterDuration returns n units as a Duration, clamped to the largest Duration.
func retryAfterDuration(n uint64, unit time.Duration) time.Duration {
	if n > uint64(math.MaxInt64/int64(unit)) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(n) * unit
}

// parseHTTPDate parses an HTTP date as http.ParseTime does, except for the
// two-digit year of the RFC 850 format, which it reads as RFC 9110 (section
// 5.6.7) says: a year that appears to be more than 50 years after now is the
// most recent past year with the same last two digits, any other is in
// this century; time.Parse instead
// reads 69–99 as 19xx and 00–68 as 20xx, so in 2026 "01-Jan-70" was 1970,
// not 2070.
func parseHTTPDate(v string, now time.Time) (time.Time, error) {
	t, err := time.Parse(time.RFC850, v)
	if err != nil {
		return http.ParseTime(v)
	}
	ny := now.UTC().Year()
	y := ny - ny%100 + t.Year()%100 // this century
	d := t.AddDate(y-t.Year(), 0, 0)
	if d.After(now.AddDate(50, 0, 0)) {
		// More than 50 years after now, as a date, not as a year: on
		// 2026-11-28, 29-Dec-76 is 1976 and 27-Nov-76 is 2076.
		d = d.AddDate(-100, 0, 0)
	}
	return d, nil
}
