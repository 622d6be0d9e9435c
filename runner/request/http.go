// Package request is the HTTP attempt source of retry run --url: one HTTP
// request per attempt (redirects followed, the body replayed, connections
// reused), its response classified for the acceptors (status, headers,
// Retry-After, the body kept whole, the error code of a failed response),
// transport errors told transient or not, and what it shows redacted. It
// implements runner.Source and imports acceptor (the attempt),
// acceptor/errorcode (error codes in a failed response), runner (the Result
// it returns and the causes of a stopped attempt), runner/output (the kept
// body and its bound) and runner/redact; runner does not import it.
package request

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/errorcode"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
	"github.com/retry-dev/retry/runner/redact"
)

// maxRedirects is how many redirects an HTTP attempt follows; one more is a
// failure.
const maxRedirects = 10

// errorBodyLimit is how much of an error body ParseHTTPError sees.
const errorBodyLimit = 1 << 20

// errTooManyRedirects ends an attempt that would follow one redirect more
// than maxRedirects. Its type makes it static data: fmt.Errorf would format
// it at every start of retry, --url or not.
var errTooManyRedirects error = tooManyRedirectsError{}

type tooManyRedirectsError struct{}

func (tooManyRedirectsError) Error() string {
	return "stopped after " + strconv.Itoa(maxRedirects) + " redirects"
}

// Config describes the request of an HTTP source (retry run --url).
type Config struct {
	// URL is the request URL: http or https, with a host. User information
	// ("https://user:pass@host/") becomes basic authentication and is
	// redacted everywhere it is shown.
	URL string
	// Method is the request method as given (methods are case-sensitive).
	// "" is POST when Body is not nil, else GET (curl's rule).
	Method string
	// Header holds the request headers. A Host header sets the request's
	// host; a User-Agent header replaces the default "retry/<Version>" (an
	// empty value sends none). Accept defaults to "*/*". No Content-Type is
	// added for a body.
	Header http.Header
	// Body is sent, identically, with every attempt (and replayed on 307
	// and 308 redirects). nil sends no body; an empty non-nil body sends
	// "Content-Length: 0".
	Body []byte
	// CACert is a PEM file of the certificates to trust instead of the
	// system's (curl --cacert). "" uses the system's.
	CACert string
	// Insecure skips TLS certificate verification (curl --insecure).
	Insecure bool
	// Idempotent declares the request safe to retry whatever its method.
	Idempotent bool
	// IdempotencyKey, when not "", is sent as the Idempotency-Key header on
	// every attempt (replacing one in Header); "auto" is a random UUIDv4
	// drawn once for the run. A request with a key, from here or from
	// Header, is safe to retry whatever its method: the server deduplicates
	// it.
	IdempotencyKey string
	// TempDir is where large response bodies spill ("" is os.TempDir).
	TempDir string
	// SpillThreshold is how much of a body stays in memory before it
	// spills to a file; 0 is output.DefaultSpillThreshold, a negative value
	// spills at once.
	SpillThreshold int64
	// MaxOutput bounds the body kept of a response: a longer one fails the
	// attempt with an *output.LimitError (not retried). 0 means
	// output.DefaultMaxKeep.
	MaxOutput int64
	// MemoryFallback bounds the memory a body may take when its spill file
	// cannot be written (see Command.MemoryFallback); 0 means
	// output.DefaultMemoryFallback.
	MemoryFallback int64
	// Window is the size of Attempt.StdoutTail; ≤ 0 is output.DefaultWindow.
	Window int
	// Version goes into the User-Agent, "retry/<Version>"; "" sends
	// "retry".
	Version string
	// HeaderTimeout bounds a call until its response headers (the connect,
	// TLS, sending the request, and the server's wait): a call that stalls
	// longer is stopped as one that timed out (runner.ErrAttemptTimeout:
	// retry, timeout). The body, once the headers came, is not bounded by
	// it. 0 means DefaultHeaderTimeout; a negative value, no bound of its
	// own (the CLI's --attempt-timeout bounds the attempt instead).
	HeaderTimeout time.Duration

	// Now is the clock for Retry-After dates; nil is time.Now.
	Now func() time.Time
	// Rand is the randomness of an "auto" idempotency key; nil is
	// crypto/rand.
	Rand io.Reader
}

// DefaultHeaderTimeout bounds an HTTP call until its response headers when
// nothing else does: a server that accepts and never answers, or a port
// whose SYNs are dropped, would otherwise hold an attempt forever (or for
// the kernel's connect limit). 60 seconds is botocore's read timeout: a
// server slower than that to start its answer is treated as stuck.
const DefaultHeaderTimeout = 60 * time.Second

// HTTP is an attempt source that makes one HTTP request per attempt. Create
// it with New and Close it after the run. It reuses connections between
// attempts. Its attempts run one at a time.
//
// An attempt's Result has Kind HTTPAttempt (no exit status) and, with a
// response: Status, Header, RetryAfter (the longer hint of Retry-After and
// x-amz-retry-after), the whole body as Stdout (held in memory up to
// SpillThreshold, then in a temp file; Release frees it), its last Window
// bytes as StdoutTail, Failed for a status outside 2xx and, then, ErrorCode
// and ErrorMessage parsed from the first MiB of the body and the headers.
// Redirects are followed, 10 at most; one more fails the attempt.
// Without a response (or when the body could not be read to its end): Failed,
// Err (URL redacted) and Transient: true for a refused, reset or timed-out
// connection, an unreachable network, a DNS failure other than an unknown
// host, a connection closed early or an HTTP/2 stream refused; false for an
// unknown host, TLS and certificate errors and too many redirects. When ctx
// ends the attempt, Stopped is context.Cause(ctx) and Err says the same.
// RetryUnsafe is set when the method is not idempotent (RFC 9110: GET, HEAD,
// PUT, DELETE, OPTIONS and TRACE are), neither Idempotent nor an idempotency
// key is set, and the request may have reached the server: a connection was
// made (a reset or a timeout after connecting, any response). A request
// refused, or whose host was not found, was certainly not sent.
type HTTP struct {
	method  string
	url     string
	header  http.Header
	host    string
	body    []byte
	unsafe  bool
	tempDir string
	spill   int64
	maxBody int64 // MaxOutput, or output.DefaultMaxKeep
	memory  int64 // MemoryFallback, or output.DefaultMemoryFallback
	window  int
	now     func() time.Time
	headers time.Duration // HeaderTimeout, the default resolved; ≤ 0: none

	client    *http.Client
	transport *http.Transport
	reqHeader http.Header // the request's headers as the exchange shows them, redacted
	urlShown  string      // the URL as the exchange shows it, redacted
	copyBuf   []byte      // attempts run one at a time
}

// ConfigError is an invalid Config field; Flag names it the way the CLI
// does: url, request (the method), header, cacert, idempotency-key.
type ConfigError struct {
	Flag string
	Err  error
}

func (e *ConfigError) Error() string { return e.Err.Error() }

func (e *ConfigError) Unwrap() error { return e.Err }

// New validates cfg and prepares its client. Every error it returns is a
// usage error (nothing was sent): a URL that does not parse, a scheme other
// than http and https, a missing host, an invalid method, header name or
// value, an unreadable CA file or one without a PEM certificate, a failure to
// draw an idempotency key. An unknown host is not an error here: attempts
// fail on it.
func New(cfg Config) (*HTTP, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		shown := redact.URL(cfg.URL)
		if shown != cfg.URL {
			// The parser's detail may quote a piece of the password.
			return nil, &ConfigError{Flag: "url", Err: fmt.Errorf("invalid URL %q: it does not parse (in user information, escape '/', '?', '#' and '@' as %%2F, %%3F, %%23, %%40)", shown)}
		}
		return nil, &ConfigError{Flag: "url", Err: fmt.Errorf("invalid URL %q: %v", shown, errors.Unwrap(err))}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, &ConfigError{Flag: "url", Err: fmt.Errorf("invalid URL %q: no scheme (use http:// or https://)", redact.URL(cfg.URL))}
	default:
		return nil, &ConfigError{Flag: "url", Err: fmt.Errorf("invalid URL %q: unsupported scheme %q (use http or https)", redact.URL(cfg.URL), u.Scheme)}
	}
	if u.Hostname() == "" {
		return nil, &ConfigError{Flag: "url", Err: fmt.Errorf("invalid URL %q: no host", redact.URL(cfg.URL))}
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, &ConfigError{Flag: "url", Err: fmt.Errorf("invalid URL %q: port %s is not in 1-65535", redact.URL(cfg.URL), p)}
		}
	}
	method := cfg.Method
	if method == "" {
		method = http.MethodGet
		if cfg.Body != nil {
			method = http.MethodPost
		}
	}
	if !IsToken(method) {
		return nil, &ConfigError{Flag: "request", Err: fmt.Errorf("invalid method %q: want a token like GET or POST", method)}
	}
	h := &HTTP{
		method:  method,
		url:     cfg.URL,
		header:  make(http.Header, len(cfg.Header)+3),
		body:    cfg.Body,
		tempDir: cfg.TempDir,
		spill:   cfg.SpillThreshold,
		window:  cfg.Window,
		now:     cfg.Now,
		headers: cfg.HeaderTimeout,
	}
	switch {
	case h.spill == 0:
		h.spill = output.DefaultSpillThreshold
	case h.spill < 0:
		h.spill = 0
	}
	if h.window <= 0 {
		h.window = output.DefaultWindow
	}
	h.maxBody, h.memory = cfg.MaxOutput, cfg.MemoryFallback
	if h.maxBody <= 0 {
		h.maxBody = output.DefaultMaxKeep
	}
	if h.memory <= 0 {
		h.memory = output.DefaultMemoryFallback
	}
	if h.headers == 0 {
		h.headers = DefaultHeaderTimeout
	}
	if h.now == nil {
		h.now = time.Now
	}
	for k, vs := range cfg.Header {
		if !IsToken(k) {
			return nil, &ConfigError{Flag: "header", Err: fmt.Errorf("invalid header name %q", k)}
		}
		for _, v := range vs {
			if !ValidHeaderValue(v) {
				return nil, &ConfigError{Flag: "header", Err: fmt.Errorf("invalid value for header %s: control characters are not allowed", k)}
			}
		}
		ck := http.CanonicalHeaderKey(k)
		if ck == "Host" {
			if len(vs) > 0 {
				h.host = vs[len(vs)-1]
			}
			continue
		}
		h.header[ck] = append(h.header[ck], vs...)
	}
	if _, ok := h.header["User-Agent"]; !ok {
		ua := "retry"
		if cfg.Version != "" {
			ua += "/" + cfg.Version
		}
		h.header.Set("User-Agent", ua)
	}
	if _, ok := h.header["Accept"]; !ok {
		h.header.Set("Accept", "*/*")
	}
	if key := cfg.IdempotencyKey; key != "" {
		if key == "auto" {
			r := cfg.Rand
			if r == nil {
				r = rand.Reader
			}
			if key, err = newUUID(r); err != nil {
				return nil, &ConfigError{Flag: "idempotency-key", Err: fmt.Errorf("drawing an idempotency key: %w", err)}
			}
		} else if !ValidHeaderValue(key) {
			return nil, &ConfigError{Flag: "idempotency-key", Err: errors.New("control characters are not allowed")}
		}
		h.header.Set("Idempotency-Key", key)
	}
	h.unsafe = !isIdempotentMethod(method) && !cfg.Idempotent && h.header.Get("Idempotency-Key") == ""

	tlsConfig := &tls.Config{InsecureSkipVerify: cfg.Insecure}
	if cfg.CACert != "" {
		pem, err := os.ReadFile(cfg.CACert)
		if err != nil {
			return nil, &ConfigError{Flag: "cacert", Err: fmt.Errorf("reading the CA certificates: %w", err)}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &ConfigError{Flag: "cacert", Err: fmt.Errorf("reading the CA certificates: no PEM certificate in %s", cfg.CACert)}
		}
		tlsConfig.RootCAs = pool
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = tlsConfig
	// The body is written byte-exact, as served: no transparent gzip.
	t.DisableCompression = true
	h.transport = t
	h.client = &http.Client{
		Transport: t,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return errTooManyRedirects
			}
			if !sameOrigin(req.URL, via[0].URL) {
				stripSecrets(req.Header)
			}
			return nil
		},
	}
	h.reqHeader = redact.Header(h.requestHeader())
	h.urlShown = redact.URL(h.url)
	return h, nil
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (the default port of the scheme when none is written).
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// stripSecrets removes the credentials from the header of a request that a
// redirect sends to another origin, as curl does: Authorization,
// Proxy-Authorization, Cookie and every header redact.IsSecretHeader hides.
func stripSecrets(h http.Header) {
	for k := range h {
		if redact.IsSecretHeader(k) && k != "Idempotency-Key" { // a key for deduplication, not a credential
			delete(h, k)
		}
	}
}

// requestHeader is the header as sent, Host included.
func (h *HTTP) requestHeader() http.Header {
	if h.host == "" {
		return h.header
	}
	hh := h.header.Clone()
	hh.Set("Host", h.host)
	return hh
}

// Method returns the request method, the default resolved.
func (h *HTTP) Method() string { return h.method }

// IdempotencyKey returns the Idempotency-Key sent with every attempt (the
// drawn one for "auto"); "" when none is sent.
func (h *HTTP) IdempotencyKey() string { return h.header.Get("Idempotency-Key") }

// Close closes the idle connections kept for reuse. Attempts after Close
// still work; they open new connections.
func (h *HTTP) Close() error {
	h.transport.CloseIdleConnections()
	return nil
}

// Attempt makes the request once; see HTTP for what the Result holds. n and
// max are not used: the request is the same on every attempt.
func (h *HTTP) Attempt(ctx context.Context, n, max int) *runner.Result {
	a := &acceptor.Attempt{Kind: acceptor.HTTPAttempt}
	x := &runner.Exchange{Method: h.method, URL: h.urlShown, RequestHeader: h.reqHeader}
	res := &runner.Result{Attempt: a, Exchange: x}
	fail := func(err error, transient bool) *runner.Result {
		a.Failed = true
		a.Err, a.Transient = err, transient
		if ctx.Err() != nil {
			res.Stopped = context.Cause(ctx)
			a.Err, a.Transient = res.Stopped, true
		}
		x.Error = a.Err.Error()
		return res
	}

	// The call runs under its own context, which the header bound cancels
	// (as a timeout) unless the headers came first.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	headerTimer := (*time.Timer)(nil)
	if h.headers > 0 {
		headerTimer = time.AfterFunc(h.headers, func() { cancel(runner.ErrAttemptTimeout) })
	}

	var body io.Reader
	if h.body != nil {
		body = bytes.NewReader(h.body)
	}
	var connected atomic.Bool
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected.Store(true) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), h.method, h.url, body)
	if err != nil { // New validated the URL and method
		return fail(redact.Error(err), false)
	}
	req.Header = h.header.Clone()
	req.Host = h.host

	resp, err := h.client.Do(req)
	if headerTimer != nil {
		headerTimer.Stop()
	}
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		a.RetryUnsafe = h.unsafe && connected.Load()
		return fail(redact.Error(err), isTransient(err))
	}
	defer resp.Body.Close()
	a.RetryUnsafe = h.unsafe
	a.Status, a.Header = resp.StatusCode, resp.Header
	a.Failed = resp.StatusCode < 200 || resp.StatusCode > 299
	a.RetryAfter = parseRetryAfter(resp.Header, h.now())
	x.Status = resp.Proto + " " + resp.Status
	x.Header = redact.Header(resp.Header)
	if resp.Request.Response != nil { // redirected
		x.FinalURL = redact.URL(resp.Request.URL.String())
		for r := resp.Request; r.Response != nil; r = r.Response.Request {
			x.Redirects++
		}
	}

	c := output.NewCapture(h.tempDir, h.spill, h.window)
	c.MemoryFallback = h.memory
	res.Release = func() { c.Close() }
	a.Stdout = c.Open
	var w io.Writer = c
	var head *headBuffer
	if a.Failed {
		head = &headBuffer{limit: errorBodyLimit}
		w = io.MultiWriter(c, head)
	}
	src := &bodyReader{r: resp.Body}
	if h.copyBuf == nil {
		h.copyBuf = make([]byte, 32<<10)
	}
	_, err = io.CopyBuffer(w, io.LimitReader(src, h.maxBody+1), h.copyBuf)
	a.StdoutTail = c.Tail()
	if err == nil && c.Size() > h.maxBody {
		limit := &output.LimitError{Limit: h.maxBody, Kept: h.maxBody == output.DefaultMaxKeep}
		a.Failed, a.Err = true, limit
		x.Error = limit.Error()
		return res
	}
	x.BodyRead, x.BodyBytes = true, c.Size()
	if head != nil {
		a.ErrorCode, a.ErrorMessage = errorcode.ParseHTTPError(resp.Header, head.buf)
	}
	switch {
	case err == nil:
		return res
	case src.err != nil: // reading the body
		return fail(fmt.Errorf("reading the response body: %w", err), isTransient(err))
	}
	return fail(&output.StreamError{Stream: "the response body", Keeping: true, Err: err}, false)
}

// isIdempotentMethod reports whether method is one that RFC 9110 calls
// idempotent, and so safe to retry: GET, HEAD, PUT, DELETE, OPTIONS, TRACE.
// Methods are case-sensitive: "get" is not GET.
func isIdempotentMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// isTransient reports whether an error of an HTTP call is worth a retry on
// the client side: connection refused, reset or aborted, a broken pipe, an
// unreachable network or host, a connection closed before the response
// ended, a timeout, a DNS failure other than "no such host", an HTTP/2
// GOAWAY or a stream the server refused or reset with INTERNAL_ERROR. Not
// transient: an unknown host (NXDOMAIN), TLS certificate and handshake
// errors, a bad URL, too many redirects, and any error it does not know. nil
// is not transient.
func isTransient(err error) bool {
	if err == nil || errors.Is(err, errTooManyRedirects) {
		return false
	}
	var (
		dnsErr      *net.DNSError
		verifyErr   *tls.CertificateVerificationError
		unknownAuth x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		invalidCert x509.CertificateInvalidError
		recordErr   tls.RecordHeaderError
		alertErr    tls.AlertError
		netErr      net.Error
		opErr       *net.OpError
	)
	switch {
	case errors.As(err, &verifyErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr),
		errors.As(err, &invalidCert), errors.As(err, &recordErr), errors.As(err, &alertErr):
		return false
	case errors.As(err, &dnsErr):
		return !dnsErr.IsNotFound
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ETIMEDOUT), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.ENETDOWN),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case errors.As(err, &netErr) && netErr.Timeout():
		return true
	case errors.As(err, &opErr):
		return true // another failure to dial, read or write
	}
	// net/http does not export these errors' types.
	msg := err.Error()
	for _, s := range transientMessages {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// transientMessages mark errors of net/http and its HTTP/2 client whose
// types are not exported: the connection went away, or the server refused
// the stream before processing it.
var transientMessages = []string{
	"http: server closed idle connection",
	"http2: server sent GOAWAY",
	"http2: client connection lost",
	"REFUSED_STREAM",
	"INTERNAL_ERROR",
}

// newUUID returns a random UUID, version 4, in its canonical form
// ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"), drawing 16 bytes from r. It
// fails only when r does.
func newUUID(r io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// isHTTPToken reports whether s is a non-empty HTTP token (RFC 9110 tchar).
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHTTPHeaderValue reports whether v has no control character but tab.
func ValidHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// headBuffer keeps the first limit bytes written to it and accepts the
// rest without keeping it.
type headBuffer struct {
	buf   []byte
	limit int
}

func (p *headBuffer) Write(b []byte) (int, error) {
	if room := p.limit - len(p.buf); room > 0 {
		p.buf = append(p.buf, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

// bodyReader remembers the error of its reader, to tell read errors from
// write errors after io.Copy.
type bodyReader struct {
	r   io.Reader
	err error
}

func (e *bodyReader) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}
