package cmd

import (
	"errors"

	"github.com/retry-dev/retry/runner"
)

// httpSource builds the HTTP source of --url.
func (o *Options) httpSource(p *plan) error {
	h, err := runner.ParseHeaders(o.Headers)
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
	src, err := runner.NewHTTP(runner.HTTPConfig{
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
		var ce *runner.ConfigError
		if errors.As(err, &ce) {
			return usageError("%s: %v", o.flagName(ce.Flag), ce.Err)
		}
		return usageError("%v", err)
	}
	p.http = true
	p.final = true
	p.describe = []string{method, runner.RedactURL(o.URL)}
	p.source = src
	closeBudget := p.closer
	p.closer = func() { src.Close(); closeBudget() }
	return nil
}
