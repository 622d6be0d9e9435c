package sinks

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestTailBuffer(t *testing.T) {
	for _, chunks := range [][]string{
		{"abc"},
		{"abcdefghij"},
		{"abcdefghijklm"},
		{"ab", "cdefg", "hijk", "l", "mnopqrstu", "v"},
		{"abcdefghijklmnopqrstuvwxyz"},
	} {
		tb := &tailBuffer{limit: 10}
		all := strings.Join(chunks, "")
		for _, c := range chunks {
			tb.Write([]byte(c))
		}
		want := all
		if len(want) > 10 {
			want = want[len(want)-10:]
		}
		if got := string(tb.bytes()); got != want || tb.total != int64(len(all)) {
			t.Errorf("%q: kept %q (total %d), want %q (%d)", chunks, got, tb.total, want, len(all))
		}
	}
}

func TestExchangeLines(t *testing.T) {
	info := map[string]string{
		"method": "GET", "url": "http://h/x", "request_headers": "Accept: */*\nUser-Agent: retry/dev",
		"status": "HTTP/1.1 503 Service Unavailable", "headers": "Retry-After: 1\nContent-Length: 4",
		"body_bytes": "4", "redirects": "1", "final_url": "http://h/y",
	}
	want := []string{"> GET http://h/x", "> Accept: */*", "> User-Agent: retry/dev", "* followed 1 redirect(s) to http://h/y",
		"< HTTP/1.1 503 Service Unavailable", "< Retry-After: 1", "< Content-Length: 4", "* body: 4 bytes"}
	if got := exchangeLines(info); !reflect.DeepEqual(got, want) {
		t.Errorf("exchangeLines:\n got %q\nwant %q", got, want)
	}
	j := infoJSON(info)
	if j["body_bytes"] != int64(4) || j["redirects"] != int64(1) {
		t.Errorf("numbers: %#v %#v", j["body_bytes"], j["redirects"])
	}
	if h, ok := j["headers"].(map[string][]string); !ok || !reflect.DeepEqual(h["Retry-After"], []string{"1"}) {
		t.Errorf("headers: %#v", j["headers"])
	}
}

// The report's tails are redacted by the rules of every sink.
func TestTailTextRedacts(t *testing.T) {
	for in, want := range map[string]string{
		"GET https://u:p@h/x":               "GET https://REDACTED@h/x",
		"authorization: Bearer abc\nok":     "authorization: REDACTED\nok",
		"login password=hunter2 token: t0k": "login password=REDACTED token: REDACTED",
		"nothing secret here":               "nothing secret here",
		"GITHUB_TOKEN=S1\napi_token=S2\naws_secret_access_key = S3\n{\"client_secret\": \"S4\"}": "GITHUB_TOKEN=REDACTED\napi_token=REDACTED\naws_secret_access_key = REDACTED\n{\"client_secret\": \"REDACTED\"}",
	} {
		if got := tailText([]byte(in)); got != want {
			t.Errorf("tailText(%q) = %q, want %q", in, got, want)
		}
	}
	long := bytes.Repeat([]byte("x"), 3000)
	if got := tailText(long); len(got) != ReportTail {
		t.Errorf("tailText: %d bytes, want %d", len(got), ReportTail)
	}
}
