package sources

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseHeaders(t *testing.T) {
	got, err := parseHeaders([]string{"Content-Type: application/json", "x-multi: a", "X-Multi:b", "X-Empty:", "X-Colon: a:b ", "Authorization:\tBearer t"})
	want := http.Header{
		"Content-Type":  {"application/json"},
		"X-Multi":       {"a", "b"},
		"X-Empty":       {""},
		"X-Colon":       {"a:b"},
		"Authorization": {"Bearer t"},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("parseHeaders = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"no colon", ": value", "Bad Name: v", "X: a\nb"} {
		if _, err := parseHeaders([]string{bad}); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("parseHeaders(%q): error %v, want one quoting it", bad, err)
		}
	}
}

// FuzzParseHeaders: an accepted header never holds CR, LF or NUL, in its
// name or its value (a header injection).
func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer x", "X: ", "NoColon", "A: b\r\nInjected: 1", "A\x00: b", "A: b\x00", " A :  b  ", ": v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		h, err := parseHeaders([]string{line})
		if err != nil {
			return
		}
		for k, vs := range h {
			if strings.ContainsAny(k, "\r\n\x00") {
				t.Fatalf("parseHeaders(%q) accepted the name %q", line, k)
			}
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("parseHeaders(%q) accepted the value %q", line, v)
				}
			}
		}
	})
}
