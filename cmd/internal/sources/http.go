package sources

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/version"
	"github.com/retry-dev/retry/runner/redact"
	"github.com/retry-dev/retry/runner/request"
)

// HTTP is --url: each attempt an HTTP call (runner/request).
var HTTP = Source{
	Kind: acceptor.HTTPAttempt, Name: "HTTP", Key: "http", Exchange: "http",
	Flag: "url", Metavar: "URL", Noun: "a URL", Attempts: "HTTP calls",
	Flags: []string{"request", "header", "data", "cacert", "insecure", "idempotent", "idempotency-key"},
	Files: []string{"cacert"},
	Final: true, Body: true,
	Ready: readyHTTP,
	Said:  saidHTTP,
	New:   func() Options { return &httpOptions{} },
}

// readyHTTP: wait --url with no acceptor waits for a 2xx, as wait-on and a
// Kubernetes probe do: any other status is polled again (a service
// starting behind a proxy answers 502, 503 or 404), and transport errors
// as the wait fallback says (refused and reset connections are polled; a
// bad certificate fails).
func readyHTTP() []acceptor.Acceptor {
	return []acceptor.Acceptor{
		{State: acceptor.StateSuccess, Matcher: acceptor.StatusMatcher(acceptor.Codes{{Lo: 200, Hi: 299}}), Name: "a 2xx status"},
		{State: acceptor.StateRetry, Matcher: acceptor.StatusMatcher(acceptor.Codes{{Lo: 100, Hi: 199}, {Lo: 300, Hi: 599}}), Name: "not a 2xx status"},
	}
}

// saidHTTP says a call that was answered: "HTTP 503", with its error code.
func saidHTTP(a *acceptor.Attempt) string {
	if a.Status == 0 {
		return ""
	}
	s := fmt.Sprintf("HTTP %d", a.Status)
	if a.ErrorCode != "" {
		s += " " + a.ErrorCode
	}
	return s
}

// httpOptions are the flags of an HTTP call.
type httpOptions struct {
	URL            string
	Method         string
	Headers        []string
	Data           string
	CACert         string
	Insecure       bool
	Idempotent     bool
	IdempotencyKey string
}

func (o *httpOptions) Register(fs *pflag.FlagSet) {
	fs.StringVar(&o.URL, "url", "", "make an HTTP call to `URL` instead of running a command")
	fs.StringVarP(&o.Method, "request", "X", "", "HTTP `METHOD` (default GET, or POST with --data)")
	fs.VarP(stringsValue{&o.Headers}, "header", "H", "HTTP header 'Name: value' (repeatable)")
	fs.StringVar(&o.Data, "data", "", "HTTP request body `DATA`, or @FILE; sent identically on every attempt")
	fs.StringVar(&o.CACert, "cacert", "", "PEM `FILE` of certificate authorities to trust for HTTPS")
	fs.BoolVar(&o.Insecure, "insecure", false, "do not verify the server's TLS certificate (warns)")
	fs.BoolVar(&o.Idempotent, "idempotent", false, "retry non-idempotent methods (POST, PATCH) even when the request may have been sent")
	fs.StringVar(&o.IdempotencyKey, "idempotency-key", "", "send Idempotency-Key: `KEY` (auto: a random one) on every attempt")
}

// Chosen: a --url that is not empty.
func (o *httpOptions) Chosen(func(string) bool) bool { return o.URL != "" }

func (o *httpOptions) Validate(c *Context) error {
	if c.Shell {
		return c.Usagef("--shell: runs a command; it cannot go with --url")
	}
	if c.Foreground {
		return c.Usagef("--shell and --foreground run commands; they cannot go with --url")
	}
	return nil
}

// method is the call's method: -X in upper case; without it GET, or POST
// with --data (curl's rule). The request source gets it resolved.
func (o *httpOptions) method(c *Context) string {
	switch {
	case o.Method != "":
		return strings.ToUpper(o.Method)
	case c.Given("data"):
		return "POST"
	}
	return "GET"
}

func (o *httpOptions) Build(c *Context) (*Built, error) {
	h, err := parseHeaders(o.Headers)
	if err != nil {
		return nil, c.Usagef("%s: %v", c.FlagName("header"), err)
	}
	var body []byte
	if c.Given("data") {
		if body, err = c.Load(o.Data); err != nil {
			return nil, c.Usagef("%s: %v", c.FlagName("data"), err)
		}
	}
	method := o.method(c)
	src, err := request.New(request.Config{
		URL:            o.URL,
		Method:         method,
		Header:         h,
		Body:           body,
		CACert:         o.CACert,
		Insecure:       o.Insecure,
		Idempotent:     o.Idempotent,
		IdempotencyKey: o.IdempotencyKey,
		MaxOutput:      c.MaxOutput,
		Version:        version.Version(),
		HeaderTimeout:  headerTimeout(c.AttemptTimeout),
	})
	if err != nil {
		var ce *request.ConfigError
		if errors.As(err, &ce) {
			return nil, c.Usagef("%s: %v", c.FlagName(ce.Flag), ce.Err)
		}
		return nil, c.Usagef("%v", err)
	}
	b := &Built{Source: src, Describe: []string{method, redact.URL(o.URL)}, Close: func() { src.Close() }}
	if o.Insecure {
		b.Warnings = []string{"--insecure: the server's TLS certificate is not verified; anyone on the path can read and change this call"}
	}
	return b, nil
}

// Identity is the call as given: method, URL, headers, --data (and
// whether it was given) and --idempotent.
func (o *httpOptions) Identity(c *Context) any {
	return map[string]any{"method": o.method(c), "url": o.URL, "headers": o.Headers,
		"data": o.Data, "data_given": c.Given("data"), "idempotent": o.Idempotent}
}

// headerTimeout is the bound of a call until its response headers:
// request.DefaultHeaderTimeout, unless --attempt-timeout bounds each
// attempt instead (-1: none of its own).
func headerTimeout(attemptTimeout time.Duration) time.Duration {
	if attemptTimeout > 0 {
		return -1
	}
	return 0
}

// parseHeaders parses request headers written "Name: value" (curl -H). The
// value is trimmed of blanks; "Name:" sends the header with an empty value.
// A line without a colon, or with a name that is not an HTTP token, is an
// error that quotes it.
func parseHeaders(lines []string) (http.Header, error) {
	h := make(http.Header, len(lines))
	for _, line := range lines {
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || !request.IsToken(name) {
			return nil, fmt.Errorf("invalid header %q: want 'Name: value'", line)
		}
		value = strings.Trim(value, " \t")
		if !request.ValidHeaderValue(value) {
			return nil, fmt.Errorf("invalid header %q: control characters are not allowed", line)
		}
		h.Add(name, value)
	}
	return h, nil
}

// stringsValue is a repeatable string flag.
type stringsValue struct{ p *[]string }

func (v stringsValue) String() string { return strings.Join(*v.p, ", ") }
func (v stringsValue) Type() string   { return "VALUE" }
func (v stringsValue) Set(s string) error {
	*v.p = append(*v.p, s)
	return nil
}
