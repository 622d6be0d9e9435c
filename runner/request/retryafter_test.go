package request

import (
	"math"
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2015, time.October, 21, 7, 28, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "120"}, 120 * time.Second},
		{"seconds with blanks", map[string]string{"Retry-After": " 3 "}, 3 * time.Second},
		{"zero seconds", map[string]string{"Retry-After": "0"}, 0},
		{"negative seconds", map[string]string{"Retry-After": "-5"}, 0},
		{"plus sign", map[string]string{"Retry-After": "+5"}, 0},
		{"fraction", map[string]string{"Retry-After": "1.5"}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"empty", map[string]string{"Retry-After": ""}, 0},
		{"huge seconds clamp", map[string]string{"Retry-After": "99999999999999999999999"}, time.Duration(math.MaxInt64)},
		{"seconds overflowing a Duration clamp", map[string]string{"Retry-After": "9300000000"}, time.Duration(math.MaxInt64)},
		{"RFC 1123 date", map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:30:00 GMT"}, 2 * time.Minute},
		{"RFC 850 date", map[string]string{"Retry-After": "Wednesday, 21-Oct-15 07:28:30 GMT"}, 30 * time.Second},
		{"ANSI C date", map[string]string{"Retry-After": "Wed Oct 21 07:28:05 2015"}, 5 * time.Second},
		{"date now", map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0},
		{"past date", map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:00:00 GMT"}, 0},
		{"ISO date is garbage", map[string]string{"Retry-After": "2015-10-21T07:30:00Z"}, 0},
		{"amz milliseconds", map[string]string{"X-Amz-Retry-After": "1500"}, 1500 * time.Millisecond},
		{"amz lower case", map[string]string{"x-amz-retry-after": "250"}, 250 * time.Millisecond},
		{"amz negative", map[string]string{"X-Amz-Retry-After": "-1500"}, 0},
		{"amz garbage", map[string]string{"X-Amz-Retry-After": "1.5s"}, 0},
		{"amz huge clamp", map[string]string{"X-Amz-Retry-After": "99999999999999999999"}, time.Duration(math.MaxInt64)},
		{"longer wins: amz", map[string]string{"Retry-After": "1", "X-Amz-Retry-After": "2500"}, 2500 * time.Millisecond},
		{"longer wins: Retry-After", map[string]string{"Retry-After": "3", "X-Amz-Retry-After": "2500"}, 3 * time.Second},
		{"garbage Retry-After, valid amz", map[string]string{"Retry-After": "later", "X-Amz-Retry-After": "40"}, 40 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h http.Header
			if tt.header != nil {
				h = http.Header{}
				for k, v := range tt.header {
					h.Set(k, v) // canonicalizes "x-amz-retry-after"
				}
			}
			if got := parseRetryAfter(h, now); got != tt.want {
				t.Errorf("parseRetryAfter(%v) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

func TestParseRetryAfterFirstValueWins(t *testing.T) {
	h := http.Header{"Retry-After": {"7", "100"}}
	if got := parseRetryAfter(h, time.Now()); got != 7*time.Second {
		t.Errorf("got %v, want 7s", got)
	}
}

// TestRetryAfterRFC850Year: the two-digit year of an RFC 850 date is read
// as RFC 9110 says: this century, unless that is more than 50 years ahead,
// then the previous one.
func TestRetryAfterRFC850Year(t *testing.T) {
	now := time.Date(2026, time.November, 25, 13, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		date string
		want time.Time // zero: in the past, no hint
	}{
		{"Thursday, 26-Nov-26 13:00:00 GMT", time.Date(2026, time.November, 26, 13, 0, 0, 0, time.UTC)},
		{"Tuesday, 01-Jan-69 00:00:00 GMT", time.Date(2069, time.January, 1, 0, 0, 0, 0, time.UTC)},
		{"Wednesday, 01-Jan-70 00:00:00 GMT", time.Date(2070, time.January, 1, 0, 0, 0, 0, time.UTC)},
		{"Monday, 01-Jan-76 00:00:00 GMT", time.Date(2076, time.January, 1, 0, 0, 0, 0, time.UTC)},
		{"Saturday, 01-Jan-77 00:00:00 GMT", time.Time{}}, // 2077 is more than 50 years ahead: 1977
		// The rule compares dates, not years: 2076-12-29 is more than 50
		// years after 2026-11-25 (1976), 2076-11-25 12:00 is not.
		{"Tuesday, 29-Dec-76 00:00:00 GMT", time.Time{}},
		{"Wednesday, 25-Nov-76 12:00:00 GMT", time.Date(2076, time.November, 25, 12, 0, 0, 0, time.UTC)},
		{"Friday, 01-Jan-99 00:00:00 GMT", time.Time{}},   // 1999
		{"Sunday, 06-Nov-94 08:49:37 GMT", time.Time{}},   // RFC 9110's own example: 1994
		{"Saturday, 01-Jan-00 00:00:00 GMT", time.Time{}}, // 2000
		// The other formats carry four digits and are not changed.
		{"Tue, 01 Jan 2069 00:00:00 GMT", time.Date(2069, time.January, 1, 0, 0, 0, 0, time.UTC)},
		{"Tue Jan  1 00:00:00 2069", time.Date(2069, time.January, 1, 0, 0, 0, 0, time.UTC)},
	} {
		var want time.Duration
		if !tt.want.IsZero() {
			want = tt.want.Sub(now)
		}
		if got := parseRetryAfter(http.Header{"Retry-After": {tt.date}}, now); got != want {
			t.Errorf("%s: got %v, want %v (until %v)", tt.date, got, want, tt.want)
		}
	}
	// 50 years ahead exactly is still this century; in 2015, 66 was 1966.
	if got, want := parseRetryAfter(http.Header{"Retry-After": {"Friday, 01-Jan-65 00:00:00 GMT"}}, time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)), time.Date(2065, 1, 1, 0, 0, 0, 0, time.UTC).Sub(time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)); got != want {
		t.Errorf("65 in 2015: got %v, want %v", got, want)
	}
	if got := parseRetryAfter(http.Header{"Retry-After": {"Saturday, 01-Jan-66 00:00:00 GMT"}}, time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)); got != 0 {
		t.Errorf("66 in 2015: got %v, want 0 (1966)", got)
	}
}
