package request

import (
	"net/http"
	"testing"
	"time"
)

// FuzzParseRetryAfter: a hint is never negative, whatever the headers say.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", "-1", "1.5", "99999999999999999999999", "Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", " 3 ", ""} {
		f.Add(s, "250")
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, retryAfter, amz string) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		h.Set("X-Amz-Retry-After", amz)
		if d := parseRetryAfter(h, now); d < 0 {
			t.Fatalf("parseRetryAfter(%q, %q) = %v < 0", retryAfter, amz, d)
		}
	})
}
