package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retry-dev/retry/internal/testcert"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["httpserver"] = cmdHTTPServer
}

// cmdHTTPServer is `httpserver [-tls] NAME SPECFILE`: it starts a scripted
// HTTP server on 127.0.0.1 in the test process for the rest of the script,
// sets $NAME_URL to its base URL ("http://127.0.0.1:PORT", no slash) and
// $NAME_ADDR to "127.0.0.1:PORT" (to write URLs like http://u:p@$NAME_ADDR/).
//
// SPECFILE lists the responses, one JSON object per line, given in order to
// the requests as they arrive (a redirect target is a request too); the last
// one repeats. Blank lines and lines starting with # are skipped. Fields, all
// optional:
//
//	{"status": 503}                       status (200; 302 with "redirect")
//	{"headers": {"Retry-After": "2", "Set-Cookie": ["a=1", "b=2"]}}
//	{"body": "{\"__type\":\"ThrottlingException\"}"}
//	{"bodySize": 1073741824}              generated body of that many bytes
//	                                      (the 64-byte line "0123…xyz\n"
//	                                      repeated, cut at the size), streamed
//	                                      with its Content-Length, never held
//	{"delay": "10ms"}                     wait before answering (ends early if
//	                                      the client goes away or the script ends)
//	{"reset": true}                       read the request, then reset the
//	                                      connection (RST): no response
//	{"close": true}                       read the request, then close the
//	                                      connection cleanly: no response
//	{"redirect": "/next"}                 Location header
//
// Each request is appended to $WORK/NAME.requests as one JSON line:
// {"n":1,"method":"POST","path":"/x?y=1","headers":{"Accept":"*/*",…},"body":"…"}
// with headers sorted by name and several values joined by ", ". The line is
// written before the response, so the file is complete once the client has
// its answer (or its reset).
//
// With -tls it serves HTTPS (HTTP/1.1) with a self-signed certificate for
// 127.0.0.1 and localhost generated at start, written to $WORK/NAME.pem for
// --cacert. The script's end stops the server.
func cmdHTTPServer(ts *testscript.TestScript, neg bool, args []string) {
	useTLS := len(args) > 0 && args[0] == "-tls"
	if useTLS {
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: httpserver [-tls] NAME SPECFILE")
	}
	name := args[0]
	specs, err := parseHTTPSpecs(ts.ReadFile(args[1]))
	if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	work := ts.Getenv("WORK")
	s, err := startScriptServer(specs, filepath.Join(work, name+".requests"), useTLS)
	ts.Check(err)
	ts.Defer(s.stop)
	if useTLS {
		ts.Check(os.WriteFile(filepath.Join(work, name+".pem"), s.certPEM, 0o644))
	}
	scriptSetenv(ts, name+"_URL", s.url)
	scriptSetenv(ts, name+"_ADDR", s.addr)
}

// httpSpec is one scripted response.
type httpSpec struct {
	Status   int                        `json:"status"`
	Headers  map[string]json.RawMessage `json:"headers"`
	Body     string                     `json:"body"`
	BodySize int64                      `json:"bodySize"`
	Delay    string                     `json:"delay"`
	Reset    bool                       `json:"reset"`
	Close    bool                       `json:"close"`
	Redirect string                     `json:"redirect"`

	delay  time.Duration
	header http.Header
}

// parseHTTPSpecs parses a SPECFILE (see cmdHTTPServer). It needs at least
// one response; an unknown field is an error, so a typo does not go unseen.
func parseHTTPSpecs(text string) ([]*httpSpec, error) {
	var specs []*httpSpec
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		sp := &httpSpec{}
		if err := dec.Decode(sp); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		if err := sp.check(); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		specs = append(specs, sp)
	}
	if len(specs) == 0 {
		return nil, errors.New("no response")
	}
	return specs, nil
}

func (sp *httpSpec) check() error {
	if sp.Delay != "" {
		d, err := time.ParseDuration(sp.Delay)
		if err != nil || d < 0 {
			return fmt.Errorf("bad delay %q", sp.Delay)
		}
		sp.delay = d
	}
	if sp.Status == 0 {
		sp.Status = http.StatusOK
		if sp.Redirect != "" {
			sp.Status = http.StatusFound
		}
	}
	if sp.Status < 100 || sp.Status > 999 {
		return fmt.Errorf("bad status %d", sp.Status)
	}
	if sp.BodySize < 0 || (sp.BodySize > 0 && sp.Body != "") {
		return errors.New("bodySize must be positive and excludes body")
	}
	if sp.Reset && sp.Close {
		return errors.New("reset and close exclude each other")
	}
	sp.header = http.Header{}
	for k, raw := range sp.Headers {
		var one string
		var many []string
		switch {
		case json.Unmarshal(raw, &one) == nil:
			sp.header.Add(k, one)
		case json.Unmarshal(raw, &many) == nil:
			for _, v := range many {
				sp.header.Add(k, v)
			}
		default:
			return fmt.Errorf("header %s: want a string or an array of strings", k)
		}
	}
	if sp.Redirect != "" {
		sp.header.Set("Location", sp.Redirect)
	}
	return nil
}

// scriptServer is a running scripted HTTP server.
type scriptServer struct {
	url     string
	addr    string
	certPEM []byte

	specs   []*httpSpec
	logPath string
	srv     *http.Server
	done    chan struct{} // closed by stop: delays end
	served  sync.WaitGroup

	mu sync.Mutex
	n  int // requests so far
	// logged, when set, is called with each request's number once it is
	// logged (tests; set under mu).
	logged func(n int)
}

// startScriptServer serves specs on 127.0.0.1 and logs requests to logPath
// (created empty).
func startScriptServer(specs []*httpSpec, logPath string, useTLS bool) (*scriptServer, error) {
	if err := os.WriteFile(logPath, nil, 0o644); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &scriptServer{specs: specs, logPath: logPath, done: make(chan struct{})}
	s.srv = &http.Server{
		Handler:  s,
		ErrorLog: log.New(io.Discard, "", 0),
		// HTTP/1.1 only, so that reset and close can hijack the connection.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	scheme := "http"
	if useTLS {
		cert, certPEM, err := testcert.SelfSigned("retry httpserver")
		if err != nil {
			ln.Close()
			return nil, err
		}
		s.certPEM = certPEM
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
		scheme = "https"
	}
	s.addr = ln.Addr().String()
	s.url = scheme + "://" + s.addr
	s.served.Go(func() { s.srv.Serve(ln) })
	return s, nil
}

// stop ends delays, closes the listener and every connection, and waits
// for Serve to return.
func (s *scriptServer) stop() {
	close(s.done)
	s.srv.Close()
	s.served.Wait()
}

// requestLine is one line of NAME.requests.
type requestLine struct {
	N       int               `json:"n"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"` // json sorts the keys
	Body    string            `json:"body"`
}

func (s *scriptServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.n++
	n := s.n
	line := requestLine{N: n, Method: r.Method, Path: r.URL.RequestURI(), Headers: map[string]string{}, Body: string(body)}
	for k, vs := range r.Header {
		line.Headers[k] = strings.Join(vs, ", ")
	}
	if r.Host != "" {
		line.Headers["Host"] = r.Host
	}
	b, _ := json.Marshal(line)
	err := appendFile(s.logPath, append(b, '\n'))
	logged := s.logged
	s.mu.Unlock()
	if logged != nil {
		logged(n)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	sp := s.specs[min(n, len(s.specs))-1]

	if sp.delay > 0 {
		t := time.NewTimer(sp.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.done:
			panic(http.ErrAbortHandler) // no response: the connection is cut
		}
	}
	if sp.Reset || sp.Close {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		if sp.Reset {
			resetConnection(conn)
		}
		conn.Close()
		return
	}
	for k, vs := range sp.header {
		w.Header()[k] = vs
	}
	if sp.BodySize > 0 {
		w.Header().Set("Content-Length", strconv.FormatInt(sp.BodySize, 10))
		w.WriteHeader(sp.Status)
		writeGeneratedBody(w, sp.BodySize)
		return
	}
	w.WriteHeader(sp.Status)
	io.WriteString(w, sp.Body)
}

// resetConnection makes Close send an RST: SO_LINGER 0 on the TCP socket,
// under TLS too.
func resetConnection(c net.Conn) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
}

// bodyLine is the 64-byte line generated bodies repeat.
const bodyLine = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-\n"

// writeGeneratedBody writes size bytes of bodyLine repeated, from one small
// buffer.
func writeGeneratedBody(w io.Writer, size int64) {
	buf := bytes.Repeat([]byte(bodyLine), 512) // 32 KiB, a whole number of lines
	for size > 0 {
		chunk := buf[:min(int64(len(buf)), size)]
		if _, err := w.Write(chunk); err != nil {
			return
		}
		size -= int64(len(chunk))
	}
}

func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readRequestLog reads NAME.requests back (for the server's own tests).
func readRequestLog(path string) ([]requestLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []requestLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l requestLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	return lines, sc.Err()
}

func TestParseHTTPSpecs(t *testing.T) {
	specs, err := parseHTTPSpecs(`
# comment
{"status":503,"headers":{"Retry-After":"2","Set-Cookie":["a=1","b=2"]},"body":"busy"}

{"redirect":"/next"}
{"bodySize":100,"delay":"10ms"}
{"reset":true}
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 4 {
		t.Fatalf("%d specs, want 4", len(specs))
	}
	if s := specs[0]; s.Status != 503 || s.Body != "busy" || s.header.Get("Retry-After") != "2" || len(s.header["Set-Cookie"]) != 2 {
		t.Errorf("spec 1: %+v", s)
	}
	if s := specs[1]; s.Status != 302 || s.header.Get("Location") != "/next" {
		t.Errorf("spec 2: %+v", s)
	}
	if s := specs[2]; s.Status != 200 || s.BodySize != 100 || s.delay != 10*time.Millisecond {
		t.Errorf("spec 3: %+v", s)
	}
	for _, bad := range []string{
		"", "# only a comment", `{"status":"503"}`, `{"stauts":503}`, `{"delay":"soon"}`, `{"delay":"-1s"}`,
		`{"status":42}`, `{"bodySize":-1}`, `{"bodySize":3,"body":"abc"}`, `{"reset":true,"close":true}`,
		`{"headers":{"X":3}}`, `not json`,
	} {
		if _, err := parseHTTPSpecs(bad); err == nil {
			t.Errorf("parseHTTPSpecs(%q): no error", bad)
		}
	}
}

// startTestScriptServer starts a scripted server from spec text, stopped at
// the test's end.
func startTestScriptServer(t *testing.T, spec string, useTLS bool) (*scriptServer, string) {
	t.Helper()
	specs, err := parseHTTPSpecs(spec)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "SRV.requests")
	s, err := startScriptServer(specs, logPath, useTLS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s, logPath
}

func TestScriptServerSequenceAndLog(t *testing.T) {
	s, logPath := startTestScriptServer(t, `
{"status":503,"headers":{"Retry-After":"1"},"body":"busy"}
{"redirect":"/done"}
{"status":201,"body":"made"}
`, false)
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	want := []struct {
		status int
		body   string
	}{{503, "busy"}, {201, "made"}, {201, "made"}}
	for i, w := range want {
		req, _ := http.NewRequest("POST", s.url+"/path?q=1", strings.NewReader(fmt.Sprintf("body %d", i+1)))
		req.Header.Set("X-B", "2")
		req.Header.Add("X-A", "1")
		req.Header.Add("X-A", "one")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != w.status || string(b) != w.body {
			t.Errorf("request %d: %d %q, want %d %q", i+1, resp.StatusCode, b, w.status, w.body)
		}
		if i == 0 && resp.Header.Get("Retry-After") != "1" {
			t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
		}
	}
	lines, err := readRequestLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// The redirect made a request of its own (a GET after the 302).
	var got []string
	for _, l := range lines {
		got = append(got, fmt.Sprintf("%d %s %s %q %s|%s", l.N, l.Method, l.Path, l.Body, l.Headers["X-A"], l.Headers["Host"]))
	}
	host := strings.TrimPrefix(s.url, "http://")
	wantLines := []string{
		`1 POST /path?q=1 "body 1" 1, one|` + host,
		`2 POST /path?q=1 "body 2" 1, one|` + host,
		`3 GET /done "" 1, one|` + host,
		`4 POST /path?q=1 "body 3" 1, one|` + host,
	}
	if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
	raw, _ := os.ReadFile(logPath)
	first, _, _ := strings.Cut(string(raw), "\n")
	if !strings.Contains(first, `"headers":{"Accept-Encoding":"gzip","Content-Length":"6","Host":"`) {
		t.Errorf("headers are not sorted by name: %s", first)
	}
}

func TestScriptServerGeneratedBody(t *testing.T) {
	const size = 10<<20 + 7
	s, _ := startTestScriptServer(t, `{"bodySize":10485767}`, false)
	resp, err := http.Get(s.url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ContentLength != size {
		t.Errorf("Content-Length %d, want %d", resp.ContentLength, size)
	}
	r := bufio.NewReader(resp.Body)
	var n int64
	for {
		line, err := r.ReadString('\n')
		n += int64(len(line))
		if err == io.EOF {
			if line != bodyLine[:7] {
				t.Errorf("last partial line %q, want %q", line, bodyLine[:7])
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if line != bodyLine {
			t.Fatalf("line %q at %d", line, n)
		}
	}
	if n != size {
		t.Errorf("%d bytes, want %d", n, size)
	}
}

func TestScriptServerResetAndClose(t *testing.T) {
	s, logPath := startTestScriptServer(t, "{\"reset\":true}\n{\"close\":true}", false)
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	_, err := c.Post(s.url, "text/plain", strings.NewReader("x"))
	if err == nil || !strings.Contains(err.Error(), "reset") {
		t.Errorf("reset: error %v, want a connection reset", err)
	}
	_, err = c.Post(s.url, "text/plain", strings.NewReader("x"))
	if err == nil || !errors.Is(err, io.EOF) {
		t.Errorf("close: error %v, want EOF", err)
	}
	if lines, _ := readRequestLog(logPath); len(lines) != 2 {
		t.Errorf("%d requests logged, want 2", len(lines))
	}
}

func TestScriptServerStopEndsDelays(t *testing.T) {
	specs, _ := parseHTTPSpecs(`{"delay":"1h"}`)
	s, err := startScriptServer(specs, filepath.Join(t.TempDir(), "log"), false)
	if err != nil {
		t.Fatal(err)
	}
	arrived := make(chan int, 1)
	s.mu.Lock()
	s.logged = func(n int) { arrived <- n }
	s.mu.Unlock()
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Get(s.url)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	// Stop once the request is in: it must not wait out the hour.
	<-arrived
	s.stop()
	if err := <-errc; err == nil {
		t.Errorf("a delayed request got a response after stop")
	}
}

func TestScriptServerTLS(t *testing.T) {
	s, _ := startTestScriptServer(t, `{"body":"secure"}`, true)
	if !strings.HasPrefix(s.url, "https://127.0.0.1:") {
		t.Fatalf("url %s", s.url)
	}
	if _, err := http.Get(s.url); err == nil {
		t.Errorf("the self-signed certificate was trusted without the PEM")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.certPEM) {
		t.Fatal("no certificate in the PEM")
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer tr.CloseIdleConnections()
	for _, u := range []string{s.url, strings.Replace(s.url, "127.0.0.1", "localhost", 1)} {
		resp, err := (&http.Client{Transport: tr}).Get(u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "secure" || resp.Proto != "HTTP/1.1" {
			t.Errorf("%s: %s %q", u, resp.Proto, b)
		}
	}
}
