package request

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/internal/testdir"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// newTestHTTP builds an HTTP source that is closed when the test ends.
func newTestHTTP(t testing.TB, cfg Config) *HTTP {
	t.Helper()
	h, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// tryHTTP runs one attempt and releases it when the test ends.
func tryHTTP(t testing.TB, h *HTTP) *runner.Result {
	t.Helper()
	return tryHTTPCtx(t, context.Background(), h)
}

func tryHTTPCtx(t testing.TB, ctx context.Context, h *HTTP) *runner.Result {
	t.Helper()
	res := h.Attempt(ctx, 1, 1)
	if res == nil || res.Attempt == nil {
		t.Fatalf("Attempt returned no result")
	}
	if res.Release != nil {
		t.Cleanup(res.Release)
	}
	return res
}

func httpStdout(t testing.TB, res *runner.Result) string {
	t.Helper()
	r, err := res.OpenStdout()
	if err != nil {
		t.Fatalf("opening stdout: %v", err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("reading stdout: %v", err)
	}
	return string(b)
}

// httpReply is a handler that answers with status, headers and body.
func httpReply(status int, header map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func TestHTTPStatusClassification(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		header    map[string]string
		body      string
		failed    bool
		code, msg string
		want      acceptor.Directive
	}{
		{"200", 200, nil, `{"ok":true}`, false, "", "", acceptor.Succeed},
		{"204", 204, nil, ``, false, "", "", acceptor.Succeed},
		{"299", 299, nil, `x`, false, "", "", acceptor.Succeed},
		{"304 is not 2xx", 304, nil, ``, true, "", "", acceptor.Fail},
		{"400", 400, nil, `{"message":"bad"}`, true, "", "bad", acceptor.Fail},
		{"400 ThrottlingException", 400, nil, `{"__type":"com.amazon.coral#ThrottlingException","message":"Rate exceeded"}`, true, "ThrottlingException", "Rate exceeded", acceptor.RetryThrottle},
		{"400 x-amzn-ErrorType", 400, map[string]string{"X-Amzn-Errortype": "ThrottlingException:http://internal"}, ``, true, "ThrottlingException", "", acceptor.RetryThrottle},
		{"403 RequestThrottled XML", 403, nil, `<Error><Code>RequestThrottled</Code><Message>slow down</Message></Error>`, true, "RequestThrottled", "slow down", acceptor.RetryThrottle},
		{"404", 404, nil, `not found`, true, "", "", acceptor.Fail},
		{"408", 408, nil, ``, true, "", "", acceptor.RetryServer},
		{"429", 429, nil, ``, true, "", "", acceptor.RetryThrottle},
		{"500", 500, nil, `oops`, true, "", "", acceptor.RetryServer},
		{"502", 502, nil, ``, true, "", "", acceptor.RetryServer},
		{"503", 503, nil, ``, true, "", "", acceptor.RetryServer},
		{"503 SlowDown", 503, nil, `<Error><Code>SlowDown</Code></Error>`, true, "SlowDown", "", acceptor.RetryThrottle},
		{"504", 504, nil, ``, true, "", "", acceptor.RetryServer},
		{"501", 501, nil, ``, true, "", "", acceptor.Fail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(httpReply(tt.status, tt.header, tt.body))
			defer srv.Close()
			res := tryHTTP(t, newTestHTTP(t, Config{URL: srv.URL}))
			a := res.Attempt
			if a.Kind != acceptor.HTTPAttempt || a.Status != tt.status || a.Failed != tt.failed || a.Err != nil || a.Transient {
				t.Errorf("ExitCode %d Status %d Failed %v Err %v Transient %v; want -1 %d %v <nil> false",
					a.ExitCode, a.Status, a.Failed, a.Err, a.Transient, tt.status, tt.failed)
			}
			if a.ErrorCode != tt.code || a.ErrorMessage != tt.msg {
				t.Errorf("ErrorCode %q ErrorMessage %q, want %q %q", a.ErrorCode, a.ErrorMessage, tt.code, tt.msg)
			}
			if res.Stopped != nil || a.RetryUnsafe {
				t.Errorf("Stopped %v RetryUnsafe %v", res.Stopped, a.RetryUnsafe)
			}
			if got := httpStdout(t, res); got != tt.body {
				t.Errorf("stdout %q, want %q", got, tt.body)
			}
			if string(a.StdoutTail) != tt.body {
				t.Errorf("StdoutTail %q, want %q", a.StdoutTail, tt.body)
			}
			if d, why := acceptor.RunFallback(a); d != tt.want {
				t.Errorf("RunFallback = %v (%s), want %v", d, why, tt.want)
			}
		})
	}
}
func TestHTTPExchange(t *testing.T) {
	srv := httptest.NewServer(httpReply(503, map[string]string{"Set-Cookie": "session=secret", "X-Trace": "abc"}, "busy"))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	u.User = url.UserPassword("alice", "hunter2")
	res := tryHTTP(t, newTestHTTP(t, Config{URL: u.String() + "/x", Method: "POST",
		Header: http.Header{"Authorization": {"Bearer tok"}, "X-Request": {"1"}}}))
	want := &runner.Exchange{
		Method: "POST",
		URL:    "http://REDACTED@" + u.Host + "/x",
		Status: "HTTP/1.1 503 Service Unavailable",
		Header: http.Header{"Content-Length": {"4"}, "Content-Type": {"text/plain; charset=utf-8"}, "Date": {res.Header.Get("Date")},
			"Set-Cookie": {"REDACTED"}, "X-Trace": {"abc"}},
		RequestHeader: http.Header{"Accept": {"*/*"}, "Authorization": {"REDACTED"}, "User-Agent": {"retry"}, "X-Request": {"1"}},
		BodyRead:      true,
		BodyBytes:     4,
	}
	if !reflect.DeepEqual(res.Exchange, want) {
		t.Errorf("exchange:\n%+v\nwant\n%+v", res.Exchange, want)
	}
	if res.Header.Get("Set-Cookie") != "session=secret" {
		t.Errorf("the attempt's headers were redacted: acceptors must see them")
	}
}

func TestHTTPErrorsAreRedacted(t *testing.T) {
	for _, u := range []string{
		"http://alice:hunter2@" + freeHTTPAddr(t) + "/",
		"http://alice@" + freeHTTPAddr(t) + "/",
	} {
		res := tryHTTP(t, newTestHTTP(t, Config{URL: u}))
		if res.Err == nil {
			t.Fatalf("%s: no error", u)
		}
		for _, s := range []string{res.Err.Error(), res.Exchange.Error, res.Exchange.URL} {
			if strings.Contains(s, "alice") || strings.Contains(s, "hunter2") || !strings.Contains(s, "REDACTED@") {
				t.Errorf("not redacted: %q", s)
			}
		}
		var errno syscall.Errno
		if !errors.As(res.Err, &errno) || errno != syscall.ECONNREFUSED && errno != wsaeconnrefused {
			t.Errorf("the redacted error lost its cause: %v", res.Err)
		}
	}
	_, err := New(Config{URL: "ftp://alice:hunter2@h/"})
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "alice") {
		t.Errorf("New error not redacted: %v", err)
	}
}

func TestHTTPBasicAuthFromURL(t *testing.T) {
	rec := newHTTPRecorder(t, 200)
	u, _ := url.Parse(rec.srv.URL)
	u.User = url.UserPassword("alice", "hunter2")
	tryHTTP(t, newTestHTTP(t, Config{URL: u.String()}))
	if got := rec.got()[0].Header.Get("Authorization"); got != "Basic YWxpY2U6aHVudGVyMg==" {
		t.Errorf("Authorization %q", got)
	}
}

func TestHTTPStopped(t *testing.T) {
	for _, tt := range []struct {
		name   string
		cause  error
		inBody bool
	}{
		{"timeout waiting for the response", runner.ErrAttemptTimeout, false},
		{"timeout in the body", runner.ErrAttemptTimeout, true},
		{"deadline", runner.ErrDeadline, false},
		{"interrupt", &runner.Interrupt{Signal: syscall.SIGINT}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			arrived := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.inBody {
					w.Header().Set("Content-Length", "100")
					io.WriteString(w, "part")
					w.(http.Flusher).Flush()
				}
				close(arrived)
				<-r.Context().Done()
			}))
			defer srv.Close()
			ctx, cancel := context.WithCancelCause(context.Background())
			h := newTestHTTP(t, Config{URL: srv.URL, Method: "POST"})
			if tt.inBody {
				// Cancel once the response headers are in: the body is
				// being read.
				next := h.client.Transport
				h.client.Transport = httpRoundTripFunc(func(r *http.Request) (*http.Response, error) {
					resp, err := next.RoundTrip(r)
					<-arrived
					cancel(tt.cause)
					return resp, err
				})
			} else {
				go func() { <-arrived; cancel(tt.cause) }()
			}
			res := tryHTTPCtx(t, ctx, h)
			if res.Stopped != tt.cause || res.Err != tt.cause || !res.Failed || !res.Transient || !res.RetryUnsafe {
				t.Errorf("Stopped %v Err %v Failed %v Transient %v RetryUnsafe %v; want %v twice, true, true, true",
					res.Stopped, res.Err, res.Failed, res.Transient, res.RetryUnsafe, tt.cause)
			}
			if wantStatus := map[bool]int{true: 200}[tt.inBody]; res.Status != wantStatus {
				t.Errorf("Status %d, want %d", res.Status, wantStatus)
			}
		})
	}
}

type httpRoundTripFunc func(*http.Request) (*http.Response, error)

func (f httpRoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestHTTPLargeBodyBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB transfer")
	}
	const size = 64 << 20
	const chunk = 32 << 10
	var peak uint64
	var ms runtime.MemStats
	sample := func() {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		buf := make([]byte, chunk)
		for off := 0; off < size; off += chunk {
			fillBodyPattern(buf, off)
			if _, err := w.Write(buf); err != nil {
				return
			}
			if off%(4<<20) == 0 {
				sample()
			}
		}
	}))
	defer srv.Close()
	h := newTestHTTP(t, Config{URL: srv.URL, TempDir: testdir.New(t)})
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	res := tryHTTP(t, h)
	sample()
	if res.Err != nil || res.Status != 200 {
		t.Fatalf("Err %v Status %d", res.Err, res.Status)
	}
	growth := int64(peak) - int64(base)
	t.Logf("64 MiB body: heap in use grew by %.1f MiB at most (spill threshold %d MiB, window %d MiB)",
		float64(growth)/(1<<20), output.DefaultSpillThreshold>>20, output.DefaultWindow>>20)
	if growth > 24<<20 {
		t.Errorf("heap in use grew by %d bytes for a %d-byte body", growth, size)
	}
	// The capture holds the body byte-exact.
	r, err := res.OpenStdout()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := make([]byte, chunk)
	got := make([]byte, chunk)
	for off := 0; off < size; off += chunk {
		if _, err := io.ReadFull(r, got); err != nil {
			t.Fatalf("at %d: %v", off, err)
		}
		fillBodyPattern(want, off)
		if !bytes.Equal(got, want) {
			t.Fatalf("body differs in the chunk at %d", off)
		}
	}
	if n, _ := io.Copy(io.Discard, r); n != 0 {
		t.Errorf("%d bytes too many", n)
	}
	tail := make([]byte, output.DefaultWindow)
	for i := range tail {
		tail[i] = bodyPatternByte(size - output.DefaultWindow + i)
	}
	if !bytes.Equal(res.StdoutTail, tail) {
		t.Errorf("StdoutTail (%d bytes) is not the last %d bytes", len(res.StdoutTail), output.DefaultWindow)
	}
	if !res.Exchange.BodyRead || res.Exchange.BodyBytes != int64(size) {
		t.Errorf("body read %v, %d bytes", res.Exchange.BodyRead, res.Exchange.BodyBytes)
	}
}

func bodyPatternByte(i int) byte { return byte(i*7 + i>>12) }

func fillBodyPattern(b []byte, off int) {
	for i := range b {
		b[i] = bodyPatternByte(off + i)
	}
}

func TestHTTPErrorBodyPrefix(t *testing.T) {
	// The error code is parsed from the first MiB only: a code after it is
	// not seen, but the whole body is still kept.
	pad := strings.Repeat("x", 1<<20-100)
	fits := `{"pad":"` + pad + `","__type":"ThrottlingException"}`
	far := `{"pad":"` + pad + strings.Repeat("y", 200) + `","__type":"ThrottlingException"}`
	for body, want := range map[string]string{fits: "ThrottlingException", far: ""} {
		srv := httptest.NewServer(httpReply(400, nil, body))
		res := tryHTTP(t, newTestHTTP(t, Config{URL: srv.URL}))
		srv.Close()
		if res.ErrorCode != want || len(httpStdout(t, res)) != len(body) {
			t.Errorf("ErrorCode %q, want %q", res.ErrorCode, want)
		}
	}
}

func TestNewHTTPUsageErrors(t *testing.T) {
	dir := testdir.New(t)
	notPEM := filepath.Join(dir, "not.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"empty URL", Config{}, "no scheme"},
		{"no scheme", Config{URL: "example.com/x"}, "no scheme"},
		{"ftp", Config{URL: "ftp://example.com/"}, `unsupported scheme "ftp"`},
		{"no host", Config{URL: "http:///x"}, "no host"},
		{"bad port", Config{URL: "http://h:port/"}, "invalid port"},
		{"unparsable", Config{URL: "http://[::1/"}, "invalid URL"},
		{"bad method", Config{URL: "http://h/", Method: "GE T"}, "invalid method"},
		{"bad header name", Config{URL: "http://h/", Header: http.Header{"Bad Name": {"x"}}}, "invalid header name"},
		{"bad header value", Config{URL: "http://h/", Header: http.Header{"X": {"a\r\nInjected: 1"}}}, "invalid value for header X"},
		{"bad key", Config{URL: "http://h/", IdempotencyKey: "a\nb"}, "control characters are not allowed"},
		{"missing CA file", Config{URL: "http://h/", CACert: filepath.Join(dir, "nope.pem")}, "nope.pem"},
		{"CA file without PEM", Config{URL: "http://h/", CACert: notPEM}, "no PEM certificate"},
	}
	for _, tt := range tests {
		h, err := New(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New error %v, want one saying %q", tt.name, err, tt.want)
		}
		if h != nil {
			t.Errorf("%s: a source came with the error", tt.name)
		}
	}
	for _, ok := range []string{"HTTP://h/", "https://h:8443/x?y#z", "http://[::1]:80/", "http://unknown.invalid/"} {
		if _, err := New(Config{URL: ok}); err != nil {
			t.Errorf("New(%q): %v", ok, err)
		}
	}
}

func TestHTTPCloseThenAttempt(t *testing.T) {
	rec := newHTTPRecorder(t, 200)
	h := newTestHTTP(t, Config{URL: rec.srv.URL})
	tryHTTP(t, h)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if res := tryHTTP(t, h); res.Status != 200 {
		t.Errorf("after Close: status %d err %v", res.Status, res.Err)
	}
}

// BenchmarkHTTPAttempt500 measures one attempt against a local server that
// answers 500, connection reused, as a retry loop makes them.
func BenchmarkHTTPAttempt500(b *testing.B) {
	srv := httptest.NewServer(httpReply(500, map[string]string{"Content-Type": "application/json"}, `{"message":"internal error"}`))
	defer srv.Close()
	h, err := New(Config{URL: srv.URL, TempDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res := h.Attempt(ctx, 1, 0)
		if res.Status != 500 {
			b.Fatalf("status %d, err %v", res.Status, res.Err)
		}
		res.Release()
	}
}

// wsaeconnrefused is Windows' WSAECONNREFUSED, the errno of a refused
// connection there (syscall.ECONNREFUSED is only Unix's).
const wsaeconnrefused = syscall.Errno(10061)
