package sinks

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/retry-dev/retry/runner"
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
	x := &runner.Exchange{
		Method: "GET", URL: "http://h/x", RequestHeader: http.Header{"Accept": {"*/*"}, "User-Agent": {"retry/dev"}},
		Status: "HTTP/1.1 503 Service Unavailable", Header: http.Header{"Retry-After": {"1"}, "Content-Length": {"4"}},
		BodyRead: true, BodyBytes: 4, Redirects: 1, FinalURL: "http://h/y",
	}
	want := []string{"> GET http://h/x", "> Accept: */*", "> User-Agent: retry/dev", "* followed 1 redirect(s) to http://h/y",
		"< HTTP/1.1 503 Service Unavailable", "< Content-Length: 4", "< Retry-After: 1", "* body: 4 bytes"}
	if got := exchangeLines(x); !reflect.DeepEqual(got, want) {
		t.Errorf("exchangeLines:\n got %q\nwant %q", got, want)
	}
	b, err := json.Marshal(httpOf(x))
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"body_bytes":4,"final_url":"http://h/y","headers":{"Content-Length":["4"],"Retry-After":["1"]},"method":"GET","redirects":1,` +
		`"request_headers":{"Accept":["*/*"],"User-Agent":["retry/dev"]},"status":"HTTP/1.1 503 Service Unavailable","url":"http://h/x"}`
	if string(b) != wantJSON {
		t.Errorf("JSON:\n got %s\nwant %s", b, wantJSON)
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
