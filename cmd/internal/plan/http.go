package plan

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/version"
	"github.com/retry-dev/retry/runner/redact"
	"github.com/retry-dev/retry/runner/request"
)

// httpSource builds the HTTP source of --url.
func (o *Options) httpSource(p *Plan) error {
	h, err := parseHeaders(o.Net.Headers)
	if err != nil {
		return exit.Usagef("%s: %v", o.flagName("header"), err)
	}
	var body []byte
	if o.Given("data") {
		if body, err = loadArg(o.Net.Data, o.IO.In); err != nil {
			return exit.Usagef("%s: %v", o.flagName("data"), err)
		}
	}
	method := o.method()
	src, err := request.New(request.Config{
		URL:            o.Net.URL,
		Method:         method,
		Header:         h,
		Body:           body,
		CACert:         o.Net.CACert,
		Insecure:       o.Net.Insecure,
		Idempotent:     o.Net.Idempotent,
		IdempotencyKey: o.Net.IdempotencyKey,
		MaxOutput:      o.Output.MaxOutput,
		Version:        version.Version(),
		HeaderTimeout:  headerTimeout(o.Budget.AttemptTimeout),
	})
	if err != nil {
		var ce *request.ConfigError
		if errors.As(err, &ce) {
			return exit.Usagef("%s: %v", o.flagName(ce.Flag), ce.Err)
		}
		return exit.Usagef("%v", err)
	}
	p.Final = true
	p.Describe = []string{method, redact.URL(o.Net.URL)}
	p.Source = src
	closeBudget := p.Close
	p.Close = func() { src.Close(); closeBudget() }
	return nil
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
