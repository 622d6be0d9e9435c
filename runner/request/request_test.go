package request

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/runner"
)

// The tests of the request an attempt sends: redirects, headers and body,
// what is retried safely, the idempotency key and Retry-After.

func TestHTTPRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/r/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			io.WriteString(w, "arrived")
			return
		}
		http.Redirect(w, r, "/r/"+strconv.Itoa(n-1), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, n := range []int{1, 3, 10} {
		res := tryHTTP(t, newTestHTTP(t, Config{URL: fmt.Sprintf("%s/r/%d", srv.URL, n)}))
		if res.Err != nil || res.Status != 200 || httpStdout(t, res) != "arrived" {
			t.Errorf("%d redirects: Err %v Status %d", n, res.Err, res.Status)
		}
		if got := res.Exchange.Redirects; got != n {
			t.Errorf("%d redirects: exchange redirects %d", n, got)
		}
		if got := res.Exchange.FinalURL; got != srv.URL+"/r/0" {
			t.Errorf("%d redirects: exchange final URL %q", n, got)
		}
	}
	res := tryHTTP(t, newTestHTTP(t, Config{URL: srv.URL + "/r/11"}))
	if res.Err == nil || !strings.HasSuffix(res.Err.Error(), ": stopped after 10 redirects") || res.Transient || res.Status != 0 {
		t.Errorf("11 redirects: Err %v Transient %v Status %d, want a non-transient 'stopped after 10 redirects'", res.Err, res.Transient, res.Status)
	}
	if d, _ := acceptor.RunFallback(res.Attempt); d != acceptor.Fail {
		t.Errorf("11 redirects: %v, want failure", d)
	}
	if res := tryHTTP(t, newTestHTTP(t, Config{URL: srv.URL + "/r/0"})); res.Exchange.Redirects != 0 || res.Exchange.FinalURL != "" {
		t.Errorf("no redirect: exchange %+v", res.Exchange)
	}
}

// httpRecorder is a server that records the requests it gets and answers them
// with the statuses in order (the last one repeats).
type httpRecorder struct {
	mu       sync.Mutex
	requests []httpRequest
	statuses []int
	srv      *httptest.Server
	conns    int
}

type httpRequest struct {
	Method, Path, Host string
	Header             http.Header
	Body               string
}

func newHTTPRecorder(t *testing.T, statuses ...int) *httpRecorder {
	rec := &httpRecorder{statuses: statuses}
	rec.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.requests = append(rec.requests, httpRequest{r.Method, r.URL.Path, r.Host, r.Header, string(b)})
		status := rec.statuses[min(len(rec.requests), len(rec.statuses))-1]
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		fmt.Fprintf(w, "answer %d", status)
	}))
	rec.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			rec.mu.Lock()
			rec.conns++
			rec.mu.Unlock()
		}
	}
	rec.srv.Start()
	t.Cleanup(rec.srv.Close)
	return rec
}

func (r *httpRecorder) got() []httpRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]httpRequest(nil), r.requests...)
}

func TestHTTPRequest(t *testing.T) {
	rec := newHTTPRecorder(t, 200)
	h := newTestHTTP(t, Config{
		URL:     rec.srv.URL + "/path?q=1",
		Method:  "PATCH",
		Header:  http.Header{"X-One": {"1"}, "x-two": {"a", "b"}, "Host": {"example.test"}},
		Body:    []byte("payload"),
		Version: "1.2.3",
	})
	tryHTTP(t, h)
	reqs := rec.got()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "PATCH" || r.Path != "/path" || r.Host != "example.test" || r.Body != "payload" {
		t.Errorf("request %+v", r)
	}
	for k, want := range map[string][]string{
		"User-Agent":      {"retry/1.2.3"},
		"Accept":          {"*/*"},
		"X-One":           {"1"},
		"X-Two":           {"a", "b"},
		"Content-Length":  {"7"},
		"Accept-Encoding": nil, // no transparent gzip: the body is kept as served
		"Idempotency-Key": nil,
	} {
		if got := r.Header[k]; !reflect.DeepEqual(got, want) {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
}

func TestHTTPDefaults(t *testing.T) {
	rec := newHTTPRecorder(t, 200)
	tryHTTP(t, newTestHTTP(t, Config{URL: rec.srv.URL}))
	tryHTTP(t, newTestHTTP(t, Config{URL: rec.srv.URL, Body: []byte{}}))
	tryHTTP(t, newTestHTTP(t, Config{URL: rec.srv.URL, Header: http.Header{"User-Agent": {"mine"}, "Accept": {"application/json"}}}))
	tryHTTP(t, newTestHTTP(t, Config{URL: rec.srv.URL, Header: http.Header{"User-Agent": {""}}}))
	reqs := rec.got()
	want := []struct{ method, ua, accept string }{
		{"GET", "retry", "*/*"},
		{"POST", "retry", "*/*"}, // a body without a method is a POST
		{"GET", "mine", "application/json"},
		{"GET", "", "*/*"}, // an empty User-Agent sends none
	}
	for i, w := range want {
		r := reqs[i]
		if r.Method != w.method || r.Header.Get("User-Agent") != w.ua || r.Header.Get("Accept") != w.accept {
			t.Errorf("request %d: %s UA %q Accept %q, want %s %q %q", i, r.Method, r.Header.Get("User-Agent"), r.Header.Get("Accept"), w.method, w.ua, w.accept)
		}
	}
	if _, ok := reqs[3].Header["User-Agent"]; ok {
		t.Errorf("empty User-Agent sent")
	}
	h := newTestHTTP(t, Config{URL: rec.srv.URL, Body: []byte("x")})
	if h.Method() != "POST" {
		t.Errorf("Method() = %q, want POST", h.Method())
	}
}

func TestHTTPBodyReplayAndConnectionReuse(t *testing.T) {
	body := []byte("line 1\n\x00binary\r\nlast")
	rec := newHTTPRecorder(t, 500, 500, 200)
	h := newTestHTTP(t, Config{URL: rec.srv.URL, Method: "PUT", Body: body})
	for i := range 3 {
		res := tryHTTP(t, h)
		if want := []int{500, 500, 200}[i]; res.Status != want {
			t.Fatalf("attempt %d: status %d, want %d", i+1, res.Status, want)
		}
		if got := httpStdout(t, res); got != fmt.Sprintf("answer %d", res.Status) {
			t.Errorf("attempt %d: body %q", i+1, got)
		}
	}
	reqs := rec.got()
	for i, r := range reqs {
		if r.Body != string(body) || r.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
			t.Errorf("attempt %d: body %q, want %q", i+1, r.Body, body)
		}
	}
	rec.mu.Lock()
	conns := rec.conns
	rec.mu.Unlock()
	if conns != 1 {
		t.Errorf("%d connections for 3 attempts, want 1 (reused)", conns)
	}
}

func TestHTTPBodyReplayedOnRedirect(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	mux := http.NewServeMux()
	mux.HandleFunc("/from", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/to", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/to", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Method+" "+string(b))
		mu.Unlock()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	h := newTestHTTP(t, Config{URL: srv.URL + "/from", Method: "POST", Body: []byte("data")})
	tryHTTP(t, h)
	tryHTTP(t, h)
	if want := []string{"POST data", "POST data"}; !reflect.DeepEqual(bodies, want) {
		t.Errorf("bodies %q, want %q", bodies, want)
	}
}

// A redirect to another origin does not carry the credentials, as curl
// does: Authorization, Proxy-Authorization, Cookie and every header with a
// secret-looking name stay behind; other headers and the Idempotency-Key
// (a key for deduplication, not a credential) go along. A redirect within
// the origin keeps them all.
func TestHTTPRedirectStripsSecrets(t *testing.T) {
	var mu sync.Mutex
	landed := map[string]http.Header{} // by the path that redirected
	land := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		landed[r.URL.Query().Get("from")] = r.Header.Clone()
		mu.Unlock()
		io.WriteString(w, "landed")
	})
	other := httptest.NewServer(land)
	defer other.Close()
	mux := http.NewServeMux()
	mux.Handle("/landed", land)
	mux.HandleFunc("/to-other-port", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/landed?from=other-port", http.StatusFound)
	})
	mux.HandleFunc("/within", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/landed?from=within", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	mux.HandleFunc("/to-other-host", func(w http.ResponseWriter, r *http.Request) {
		// The same server under another name: the host differs, the port not.
		http.Redirect(w, r, fmt.Sprintf("http://localhost:%d/landed?from=other-host", port), http.StatusFound)
	})
	header := http.Header{
		"Authorization":       {"Bearer S1"},
		"Cookie":              {"c=S2"},
		"X-Vault-Token":       {"S3"},
		"Proxy-Authorization": {"Basic S4"},
		"X-Goog-Api-Key":      {"S5"},
		"Idempotency-Key":     {"k1"},
		"X-Trace":             {"kept"},
	}
	secrets := []string{"Authorization", "Cookie", "X-Vault-Token", "Proxy-Authorization", "X-Goog-Api-Key"}
	for _, tt := range []struct {
		from  string
		path  string
		strip bool
	}{
		{"other-port", "/to-other-port", true},
		{"other-host", "/to-other-host", true},
		{"within", "/within", false},
	} {
		res := tryHTTP(t, newTestHTTP(t, Config{URL: srv.URL + tt.path, Header: header.Clone()}))
		if res.Status != 200 || res.Exchange.Redirects != 1 {
			t.Fatalf("%s: status %d, %d redirects, err %v; want 200 after 1", tt.from, res.Status, res.Exchange.Redirects, res.Err)
		}
		mu.Lock()
		got := landed[tt.from]
		mu.Unlock()
		for _, k := range secrets {
			if v := got.Get(k); (v == "") != tt.strip {
				t.Errorf("%s: the landing request has %s %q; want it %s", tt.from, k, v, map[bool]string{true: "stripped", false: "kept"}[tt.strip])
			}
		}
		if got.Get("X-Trace") != "kept" || got.Get("Idempotency-Key") != "k1" {
			t.Errorf("%s: X-Trace %q, Idempotency-Key %q: want both sent on", tt.from, got.Get("X-Trace"), got.Get("Idempotency-Key"))
		}
	}
}

// Origins are scheme, host and port, the scheme's default port standing in
// for none; names compare without case.
func TestSameOrigin(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"http://h/a", "http://h/b?q=1", true},
		{"http://h/", "http://h:80/", true},
		{"https://h/", "https://h:443/", true},
		{"HTTP://H.example/", "http://h.EXAMPLE/", true},
		{"https://h/", "http://h/", false},
		{"https://h:8443/", "http://h:8443/", false},
		{"http://h/", "http://h:8080/", false},
		{"http://h:443/", "https://h/", false},
		{"http://h/", "http://h2/", false},
		{"http://127.0.0.1:8080/", "http://localhost:8080/", false},
	} {
		a, err := url.Parse(tt.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := url.Parse(tt.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := sameOrigin(a, b); got != tt.same {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

func TestHTTPRetryUnsafe(t *testing.T) {
	rec := newHTTPRecorder(t, 503)
	refused := "http://" + freeHTTPAddr(t) + "/"
	tests := []struct {
		name string
		cfg  Config
		want bool
	}{
		{"POST after 503", Config{URL: rec.srv.URL, Method: "POST"}, true},
		{"PATCH after 503", Config{URL: rec.srv.URL, Method: "PATCH"}, true},
		{"custom method after 503", Config{URL: rec.srv.URL, Method: "PURGE"}, true},
		{"lower-case get is not GET", Config{URL: rec.srv.URL, Method: "get"}, true},
		{"a body makes a POST", Config{URL: rec.srv.URL, Body: []byte("x")}, true},
		{"POST, idempotent", Config{URL: rec.srv.URL, Method: "POST", Idempotent: true}, false},
		{"POST with an idempotency key", Config{URL: rec.srv.URL, Method: "POST", IdempotencyKey: "k1"}, false},
		{"POST with an Idempotency-Key header", Config{URL: rec.srv.URL, Method: "POST", Header: http.Header{"Idempotency-Key": {"k2"}}}, false},
		{"POST after connection refused", Config{URL: refused, Method: "POST"}, false},
	}
	for _, m := range []string{"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"} {
		tests = append(tests, struct {
			name string
			cfg  Config
			want bool
		}{m + " after 503", Config{URL: rec.srv.URL, Method: m}, false})
	}
	for _, tt := range tests {
		res := tryHTTP(t, newTestHTTP(t, tt.cfg))
		if res.RetryUnsafe != tt.want {
			t.Errorf("%s: RetryUnsafe %v, want %v (status %d, err %v)", tt.name, res.RetryUnsafe, tt.want, res.Status, res.Err)
		}
	}
}

// httpNoDelay is a backoff without delay.
var httpNoDelay = backoff.Func(func(backoff.Step, backoff.Rand) time.Duration { return 0 })

func TestHTTPStrategyDoesNotRetryUnsafePOST(t *testing.T) {
	for _, tt := range []struct {
		name       string
		idempotent bool
		attempts   int
		end        runner.End
	}{
		{"not idempotent", false, 1, runner.EndFailure},
		{"idempotent", true, 3, runner.EndAttempts},
	} {
		rec := newHTTPRecorder(t, 503)
		s := &runner.Strategy{MaxAttempts: 3, Chain: &acceptor.Chain{}, Backoff: httpNoDelay,
			Sleep: func(context.Context, time.Duration) error { return nil }}
		h := newTestHTTP(t, Config{URL: rec.srv.URL, Method: "POST", Body: []byte("once"), Idempotent: tt.idempotent})
		out := s.Run(context.Background(), h)
		if out.End != tt.end || len(out.Attempts) != tt.attempts || len(rec.got()) != tt.attempts {
			t.Errorf("%s: End %v after %d attempts (%d requests), want %v after %d", tt.name, out.End, len(out.Attempts), len(rec.got()), tt.end, tt.attempts)
		}
		if last := out.Last(); last.Result.Release != nil {
			last.Result.Release()
		}
	}
}

var uuidV4Pattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestHTTPIdempotencyKey(t *testing.T) {
	rec := newHTTPRecorder(t, 503)
	fixed := newTestHTTP(t, Config{URL: rec.srv.URL, Method: "POST", IdempotencyKey: "my-key"})
	auto := newTestHTTP(t, Config{URL: rec.srv.URL, Method: "POST", IdempotencyKey: "auto",
		Rand: bytes.NewReader(bytes.Repeat([]byte{0xff}, 16))})
	for range 3 {
		tryHTTP(t, fixed)
	}
	for range 3 {
		tryHTTP(t, auto)
	}
	var keys []string
	for _, r := range rec.got() {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
	}
	want := []string{"my-key", "my-key", "my-key",
		"ffffffff-ffff-4fff-bfff-ffffffffffff", "ffffffff-ffff-4fff-bfff-ffffffffffff", "ffffffff-ffff-4fff-bfff-ffffffffffff"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if auto.IdempotencyKey() != want[3] || fixed.IdempotencyKey() != "my-key" {
		t.Errorf("IdempotencyKey() = %q, %q", auto.IdempotencyKey(), fixed.IdempotencyKey())
	}
	// crypto/rand: well-formed and drawn per source.
	a := newTestHTTP(t, Config{URL: rec.srv.URL, IdempotencyKey: "auto"}).IdempotencyKey()
	b := newTestHTTP(t, Config{URL: rec.srv.URL, IdempotencyKey: "auto"}).IdempotencyKey()
	if !uuidV4Pattern.MatchString(a) || !uuidV4Pattern.MatchString(b) || a == b {
		t.Errorf("auto keys %q and %q: want two distinct UUIDv4", a, b)
	}
	if _, err := New(Config{URL: rec.srv.URL, IdempotencyKey: "auto", Rand: bytes.NewReader(nil)}); err == nil {
		t.Errorf("no error when the randomness fails")
	}
}

func TestNewUUID(t *testing.T) {
	got, err := newUUID(bytes.NewReader([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}))
	if want := "00010203-0405-4607-8809-0a0b0c0d0e0f"; err != nil || got != want {
		t.Errorf("newUUID = %q, %v; want %q", got, err, want)
	}
}

func TestHTTPRetryAfter(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for hdr, want := range map[string]time.Duration{
		"Retry-After: 2": 2 * time.Second,
		"Retry-After: Wed, 02 Jan 2030 03:04:35 GMT":     30 * time.Second,
		"Retry-After: Wed, 02 Jan 2030 03:00:00 GMT":     0,
		"X-Amz-Retry-After: 750":                         750 * time.Millisecond,
		"Retry-After: -1":                                0,
		"Retry-After: nonsense":                          0,
		"Retry-After: Wednesday, 02-Jan-30 03:04:15 GMT": 10 * time.Second,
	} {
		k, v, _ := strings.Cut(hdr, ": ")
		srv := httptest.NewServer(httpReply(503, map[string]string{k: v}, ""))
		res := tryHTTP(t, newTestHTTP(t, Config{URL: srv.URL, Now: func() time.Time { return now }}))
		srv.Close()
		if res.RetryAfter != want {
			t.Errorf("%s: RetryAfter %v, want %v", hdr, res.RetryAfter, want)
		}
	}
}
