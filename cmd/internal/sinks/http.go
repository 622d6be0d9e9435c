package sinks

import (
	"fmt"
	"maps"
	"slices"

	"github.com/retry-dev/retry/runner"
)

// exchangeLines is an attempt's exchange as -v logs it, in the order of
// the exchange, as curl -v does: "> " the request line and headers, "< "
// the status line and response headers, "* " what retry noted (redirects
// followed, body size, transport error, the address a TCP connect
// reached).
func exchangeLines(x *runner.Exchange) []string {
	if x == nil {
		return nil
	}
	var out []string
	if x.Method != "" || x.URL != "" {
		out = append(out, "> "+x.Method+" "+x.URL)
	}
	out = append(out, headerLines("> ", x.RequestHeader)...)
	if x.Redirects > 0 {
		out = append(out, fmt.Sprintf("* followed %d redirect(s) to %s", x.Redirects, x.FinalURL))
	}
	if x.Status != "" {
		out = append(out, "< "+x.Status)
	}
	out = append(out, headerLines("< ", x.Header)...)
	if x.BodyRead {
		out = append(out, fmt.Sprintf("* body: %d bytes", x.BodyBytes))
	}
	if x.Error != "" {
		out = append(out, "* error: "+x.Error)
	}
	if x.Connected != "" {
		out = append(out, "* connected: "+x.Connected)
	}
	return out
}

// headerLines is h as "Name: value" lines after lead, one per value,
// sorted by name.
func headerLines(lead string, h map[string][]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			out = append(out, lead+k+": "+v)
		}
	}
	return out
}
