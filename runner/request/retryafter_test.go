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
