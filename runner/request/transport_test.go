package request

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/internal/testcert"
	"github.com/retry-dev/retry/internal/testdir"
)

// The tests of how a request fails: refused and reset connections, unknown
// hosts, TLS, and which failures are transient.

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
		// "connection refused" on Unix, "Connection refused." under Wine,
		// "…the target machine actively refused it." on Windows.
		{"connection refused", func(t *testing.T) string { return "http://" + freeHTTPAddr(t) + "/" }, true, "refused", false, 0},
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
				if !strings.Contains(strings.ToLower(a.Err.Error()), strings.ToLower(tt.errLike)) {
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
	cert, _, err := testcert.SelfSigned("retry test")
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// writeCertPEM writes srv's certificate to a PEM file and returns its path.
func writeCertPEM(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	file := filepath.Join(testdir.New(t), "ca.pem")
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
	pemFile := filepath.Join(testdir.New(t), "other.pem")
	os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: other.Certificate().Raw}), 0o600)
	if res := tryHTTP(t, newTestHTTP(t, Config{URL: srv.URL, CACert: pemFile})); res.Err == nil {
		t.Errorf("a certificate not in the CA file was accepted")
	}
}
