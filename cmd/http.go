package cmd

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/retry-dev/retry/runner/redact"
	"github.com/retry-dev/retry/runner/request"
)

// httpSource builds the HTTP source of --url.
func (o *Options) httpSource(p *plan) error {
	h, err := parseHeaders(o.Headers)
	if err != nil {
		return usageError("%s: %v", o.flagName("header"), err)
	}
	var body []byte
	if o.given("data") {
		if body, err = loadArg(o.Data, o.IO.In); err != nil {
			return usageError("%s: %v", o.flagName("data"), err)
		}
	}
	method := o.method()
	src, err := request.New(request.Config{
		URL:            o.URL,
		Method:         method,
		Header:         h,
		Body:           body,
		CACert:         o.CACert,
		Insecure:       o.Insecure,
		Idempotent:     o.Idempotent,
		IdempotencyKey: o.IdempotencyKey,
		MaxOutput:      o.MaxOutput,
		Version:        Version(),
	})
	if err != nil {
		var ce *request.ConfigError
		if errors.As(err, &ce) {
			return usageError("%s: %v", o.flagName(ce.Flag), ce.Err)
		}
		return usageError("%v", err)
	}
	p.http = true
	p.final = true
	p.describe = []string{method, redact.URL(o.URL)}
	p.source = src
	closeBudget := p.closer
	p.closer = func() { src.Close(); closeBudget() }
	return nil
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
		if !ok || !httpToken(name) {
			return nil, fmt.Errorf("invalid header %q: want 'Name: value'", line)
		}
		value = strings.Trim(value, " \t")
		if !validHeaderValue(value) {
			return nil, fmt.Errorf("invalid header %q: control characters are not allowed", line)
		}
		h.Add(name, value)
	}
	return h, nil
}

// httpToken reports whether s is a non-empty HTTP token (RFC 9110 tchar).
// request.New checks header names and values the same way, for a Config
// built in code; here the check quotes the --header line.
func httpToken(s string) bool {
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

// validHeaderValue reports whether v has no control character but tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
