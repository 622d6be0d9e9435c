package request

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/backoff"
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

// freeHTTPAddr returns a loopback address nothing listens on.
func freeHTTPAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// rawHTTPServer accepts connections on loopback and hands each to serve, until
// the test ends.
func rawHTTPServer(t *testing.T, serve func(c *net.TCPConn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { defer c.Close(); serve(c.(*net.TCPConn)) })
		}
	})
	return ln.Addr().String()
}

// readHTTPRequest reads one request and its body from c.
func readHTTPRequest(c net.Conn) {
	if req, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
		io.Copy(io.Discard, req.Body)
	}
}

// resetHTTPConn closes c with an RST.
func resetHTTPConn(c *net.TCPConn) {
	c.SetLinger(0)
	c.Close()
}

func TestHTTPTransportErrors(t *testing.T) {
	tests := []struct {
		name      string
		url       func(t *testing.T) string
		transient bool
		errLike   string
		unsafe    bool // for a POST
		status    int
	}{
		{"connection refused", func(t *testing.T) string { return "http://" + freeHTTPAddr(t) + "/" }, true, "connection refused", false, 0},
		{"connection reset before the response", func(t *testing.T) string {
			return "http://" + rawHTTPServer(t, func(c *net.TCPConn) { readHTTPRequest(c); resetHTTPConn(c) }) + "/"
		}, true, "", true, 0},
		{"connection closed before the response", func(t *testing.T) string {
			return "http://" + rawHTTPServer(t, func(c *net.TCPConn) { readHTTPRequest(c) }) + "/"
		}, true, "EOF", true, 0},
		{"connection closed in the body", func(t *testing.T) string {
			return "http://" + rawHTTPServer(t, func(c *net.TCPConn) {
				readHTTPRequest(c)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
			}) + "/"
		}, true, "reading the response body: unexpected EOF", true, 200},
		{"https to a plain HTTP server", func(t *testing.T) string {
			srv := httptest.NewServer(httpReply(200, nil, "ok"))
			t.Cleanup(srv.Close)
			return strings.Replace(srv.URL, "http:", "https:", 1)
		}, false, "server gave HTTP response to HTTPS client", false, 0},
		{"self-signed certificate", func(t *testing.T) string {
			return tlsHTTPServer(t, httpReply(200, nil, "ok")).URL
		}, false, "certificate", false, 0},
		{"redirect loop", func(t *testing.T) string {
			srv := httptest.NewServer(http.RedirectHandler("/loop", http.StatusFound))
			t.Cleanup(srv.Close)
			return srv.URL + "/loop"
		}, false, "stopped after 10 redirects", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := tt.url(t)
			for _, method := range []string{"GET", "POST"} {
				res := tryHTTP(t, newTestHTTP(t, Config{URL: u, Method: method}))
				a := res.Attempt
				if a.Err == nil {
					t.Fatalf("%s: no error; status %d", method, a.Status)
				}
				if !a.Failed || a.Transient != tt.transient || a.Status != tt.status || a.Kind != acceptor.HTTPAttempt {
					t.Errorf("%s: Failed %v Transient %v Status %d ExitCode %d, want true %v %d -1 (err: %v)",
						method, a.Failed, a.Transient, a.Status, a.ExitCode, tt.transient, tt.status, a.Err)
				}
				if !strings.Contains(a.Err.Error(), tt.errLike) {
					t.Errorf("%s: error %q does not say %q", method, a.Err, tt.errLike)
				}
				if res.Exchange.Error != a.Err.Error() {
					t.Errorf("%s: exchange error %q, want %q", method, res.Exchange.Error, a.Err)
				}
				if want := tt.unsafe && method == "POST"; a.RetryUnsafe != want {
					t.Errorf("%s: RetryUnsafe %v, want %v", method, a.RetryUnsafe, want)
				}
				if res.Stopped != nil {
					t.Errorf("%s: Stopped %v", method, res.Stopped)
				}
				want := acceptor.Fail
				if tt.transient {
					want = acceptor.RetryClient
				}
				if d, _ := acceptor.RunFallback(a); d != want {
					t.Errorf("%s: RunFallback = %v, want %v", method, d, want)
				}
			}
		})
	}
}

// tlsHTTPServer starts an HTTPS server with a self-signed certificate that does
// not log handshake errors.
// Each has its own certificate (httptest's default one is shared).
func tlsHTTPServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{selfSignedCert(t)}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPUnknownHost(t *testing.T) {
	res := tryHTTP(t, newTestHTTP(t, Config{URL: "http://no-such-host.invalid/", Method: "POST"}))
	var dnsErr *net.DNSError
	if !errors.As(res.Err, &dnsErr) {
		t.Fatalf("error %v is not a DNS error", res.Err)
	}
	if !dnsErr.IsNotFound {
		t.Skipf("this machine cannot resolve names: %v", res.Err)
	}
	if res.Transient || !res.Failed || res.RetryUnsafe {
		t.Errorf("Transient %v Failed %v RetryUnsafe %v, want false true false", res.Transient, res.Failed, res.RetryUnsafe)
	}
}

// httpTimeoutError is a net.Error that timed out.
type httpTimeoutError struct{}

func (httpTimeoutError) Error() string   { return "i/o timeout" }
func (httpTimeoutError) Timeout() bool   { return true }
func (httpTimeoutError) Temporary() bool { return true }

func TestIsTransient(t *testing.T) {
	wrap := func(err error) error { return &url.Error{Op: "Get", URL: "http://h/", Err: err} }
	op := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"refused", wrap(op(os.NewSyscallError("connect", syscall.ECONNREFUSED))), true},
		{"reset", wrap(op(os.NewSyscallError("read", syscall.ECONNRESET))), true},
		{"broken pipe", wrap(op(os.NewSyscallError("write", syscall.EPIPE))), true},
		{"host unreachable", wrap(op(os.NewSyscallError("connect", syscall.EHOSTUNREACH))), true},
		{"other dial failure", wrap(op(errors.New("something odd"))), true},
		{"EOF", wrap(io.EOF), true},
		{"unexpected EOF", fmt.Errorf("reading the response body: %w", io.ErrUnexpectedEOF), true},
		{"timeout", wrap(httpTimeoutError{}), true},
		{"DNS no such host", wrap(op(&net.DNSError{Err: "no such host", Name: "x", IsNotFound: true})), false},
		{"DNS temporary", wrap(op(&net.DNSError{Err: "server misbehaving", Name: "x", IsTemporary: true})), true},
		{"DNS timeout", wrap(op(&net.DNSError{Err: "timeout", Name: "x", IsTimeout: true})), true},
		{"unknown authority", wrap(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), false},
		{"bare unknown authority", wrap(x509.UnknownAuthorityError{}), false},
		{"hostname mismatch", wrap(x509.HostnameError{Host: "x"}), false},
		{"expired", wrap(x509.CertificateInvalidError{Reason: x509.Expired}), false},
		{"not TLS", wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), false},
		{"TLS alert", wrap(op(tls.AlertError(40))), false},
		{"too many redirects", wrap(errTooManyRedirects), false},
		{"bad URL", &url.Error{Op: "parse", URL: "::", Err: errors.New("missing protocol scheme")}, false},
		{"HTTP/2 GOAWAY", wrap(errors.New("http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=\"\"")), true},
		{"HTTP/2 refused stream", wrap(errors.New("stream error: stream ID 3; REFUSED_STREAM")), true},
		{"HTTP/2 internal error", wrap(errors.New("stream error: stream ID 3; INTERNAL_ERROR; received from peer")), true},
		{"server closed idle connection", wrap(errors.New("http: server closed idle connection")), true},
		{"HTTP/2 protocol error", wrap(errors.New("stream error: stream ID 3; PROTOCOL_ERROR")), false},
		{"unknown", errors.New("net/http: invalid header"), false},
	}
	for _, tt := range tests {
		if got := isTransient(tt.err); got != tt.want {
			t.Errorf("%s: isTransient(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// selfSignedCert returns a new self-signed certificate for 127.0.0.1.
func selfSignedCert(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "retry test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// writeCertPEM writes srv's certificate to a PEM file and returns its path.
func writeCertPEM(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ca.pem")
	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestHTTPSelfSignedAcceptedWithCACertOrInsecure(t *testing.T) {
	srv := tlsHTTPServer(t, httpReply(200, nil, "secure"))

	refused := tryHTTP(t, newTestHTTP(t, Config{URL: srv.URL}))
	if refused.Err == nil || refused.Transient {
		t.Fatalf("self-signed certificate: Err %v Transient %v, want a non-transient error", refused.Err, refused.Transient)
	}
	for name, cfg := range map[string]Config{
		"cacert":   {URL: srv.URL, CACert: writeCertPEM(t, srv)},
		"insecure": {URL: srv.URL, Insecure: true},
	} {
		res := tryHTTP(t, newTestHTTP(t, cfg))
		if res.Err != nil || res.Status != 200 || httpStdout(t, res) != "secure" {
			t.Errorf("%s: Err %v Status %d, want a 200", name, res.Err, res.Status)
		}
	}
	// The CA file replaces the system roots: another server's certificate
	// is refused.
	other := tlsHTTPServer(t, httpReply(200, nil, "other"))
	pemFile := filepath.Join(t.TempDir(), "other.pem")
	os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: other.Certificate().Raw}), 0o600)
	if res := tryHTTP(t, newTestHTTP(t, Config{URL: srv.URL, CACert: pemFile})); res.Err == nil {
		t.Errorf("a certificate not in the CA file was accepted")
	}
}

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
		if !errors.Is(res.Err, syscall.ECONNREFUSED) {
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
	h := newTestHTTP(t, Config{URL: srv.URL, TempDir: t.TempDir()})
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
	dir := t.TempDir()
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
		{"missing CA file", Config{URL: "http://h/", CACert: filepath.Join(dir, "nope.pem")}, "no such file"},
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
