package cmd

import (
	"strings"

	"github.com/retry-dev/retry/runner"
)

// httpSource builds the HTTP source of --url.
func (o *Options) httpSource(p *plan) error {
	if o.Shell || o.Foreground {
		return usageError("--shell and --foreground run commands; they cannot go with --url")
	}
	h, err := runner.ParseHeaders(o.Headers)
	if err != nil {
		return usageError("--header: %v", err)
	}
	var body []byte
	if o.given("data") {
		if body, err = runner.LoadData(o.Data, o.IO.In); err != nil {
			return usageError("--data: %v", err)
		}
	}
	method := strings.ToUpper(o.Method)
	if method == "" {
		method = "GET"
		if o.given("data") {
			method = "POST"
		}
	}
	src, err := runner.NewHTTP(runner.HTTPConfig{
		URL:            o.URL,
		Method:         method,
		Header:         h,
		Body:           body,
		CACert:         o.CACert,
		Insecure:       o.Insecure,
		Idempotent:     o.Idempotent,
		IdempotencyKey: o.IdempotencyKey,
		Version:        Version(),
	})
	if err != nil {
		return usageError("%v", err)
	}
	if o.Insecure { // a security warning: printed even with -q
		newLogger(o, p).warn("--insecure: the server's TLS certificate is not verified; anyone on the path can read and change this call")
	}
	p.http = true
	p.final = true
	p.describe = []string{method, runner.RedactURL(o.URL)}
	p.source = src
	closeBudget := p.closer
	p.closer = func() { src.Close(); closeBudget() }
	return nil
}
