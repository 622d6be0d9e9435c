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
	long := append(bytes.Repeat([]byte("x"), 3000), "\nlast line\n"...)
	if got := tailText(long); got != "last line\n" {
		t.Errorf("tailText of a long line then another: %q", got)
	}
}

// A tail window that the cut started inside a line starts at the next
// line: the 2 KiB tail of a 2.5 KB key shows none of it, nor the body of a
// private key whose start the window left out.
func TestTailTextWindow(t *testing.T) {
	key := "api_key=" + strings.Repeat("K", 2500) + "\ndone\n"
	if got := tailText([]byte(key)); got != "done\n" {
		t.Errorf("tailText = %.60q", got)
	}
	if got := tailText([]byte(strings.Repeat("K", 3000))); got != "" {
		t.Errorf("tailText of one long line = %.60q", got)
	}
	pem := "-----BEGIN PRIVATE KEY-----\n" + strings.Repeat(strings.Repeat("B", 64)+"\n", 40) + "-----END PRIVATE KEY-----\nafter\n"
	if got := tailText([]byte(pem)); got != "after\n" {
		t.Errorf("tailText of a key's end = %.80q", got)
	}
	lines := strings.Repeat("line\n", 600) // 2048 is not a multiple of 5
	w := lines[len(lines)-ReportTail:]
	if got, want := tailText([]byte(lines)), w[strings.IndexByte(w, '\n')+1:]; got != want {
		t.Errorf("tailText of lines = %.40q, want %.40q", got, want)
	}
	lines = strings.Repeat("1234567\n", 512) // a line ends just before the window
	if got := tailText([]byte(lines)); got != lines[len(lines)-ReportTail:] {
		t.Errorf("tailText of lines from a line start = %.40q", got)
	}
}
