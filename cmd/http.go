package cmd

import (
	"errors"
	"strings"

	"github.com/retry-dev/retry/runner/redact"
	"github.com/retry-dev/retry/runner/request"
)

// httpSource builds the HTTP source of --url.
func (o *Options) httpSource(p *plan) error {
	if o.Shell || o.Foreground {
		return usageError("--shell and --foreground run commands; they cannot go with --url")
	}
	h, err := request.ParseHeaders(o.Headers)
	if err != nil {
		return usageError("%s: %v", o.flagName("header"), err)
	}
	var body []byte
	if o.given("data") {
		if body, err = loadArg(o.Data, o.IO.In); err != nil {
			return usageError("%s: %v", o.flagName("data"), err)
		}
	}
	method := strings.ToUpper(o.Method)
	if method == "" {
		method = "GET"
		if o.given("data") {
			method = "POST"
		}
	}
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
	if o.Insecure { // a security warning: printed even with -q
		newLogger(o, p).warn("--insecure: the server's TLS certificate is not verified; anyone on the path can read and change this call")
	}
	p.http = true
	p.final = true
	p.describe = []string{method, redact.URL(o.URL)}
	p.source = src
	closeBudget := p.closer
	p.closer = func() { src.Close(); closeBudget() }
	return nil
}
