package sinks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/retry-dev/retry/runner/request"
)

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// exchangeLines is an HTTP attempt as -v logs it, in the order of the
// exchange, as curl -v does: "> " the request line and headers, "< " the
// status line and response headers, "* " what retry noted (redirects
// followed, body size, transport error).
func exchangeLines(info map[string]string) []string {
	if len(info) == 0 {
		return nil
	}
	var out []string
	if m, u := info[request.InfoMethod], info[request.InfoURL]; m != "" || u != "" {
		out = append(out, "> "+m+" "+u)
	}
	for _, h := range lines(info[request.InfoRequestHeaders]) {
		out = append(out, "> "+h)
	}
	if n := info[request.InfoRedirects]; n != "" {
		out = append(out, fmt.Sprintf("* followed %s redirect(s) to %s", n, info[request.InfoFinalURL]))
	}
	if s := info[request.InfoStatus]; s != "" {
		out = append(out, "< "+s)
	}
	for _, h := range lines(info[request.InfoHeaders]) {
		out = append(out, "< "+h)
	}
	if b := info[request.InfoBodyBytes]; b != "" {
		out = append(out, "* body: "+b+" bytes")
	}
	if e := info[request.InfoError]; e != "" {
		out = append(out, "* error: "+e)
	}
	// Anything a source adds later still shows, after the exchange.
	for _, k := range sortedKeys(info) {
		if !knownInfo[k] {
			for _, v := range lines(info[k]) {
				out = append(out, "* "+k+": "+v)
			}
		}
	}
	return out
}

var knownInfo = map[string]bool{
	request.InfoMethod: true, request.InfoURL: true, request.InfoFinalURL: true,
	request.InfoRedirects: true, request.InfoStatus: true, request.InfoHeaders: true,
	request.InfoRequestHeaders: true, request.InfoBodyBytes: true, request.InfoError: true,
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// infoJSON is Result.Info as the report and the JSON log show it: numbers
// as JSON numbers, headers as objects of arrays of values (as curl's
// %{header_json}), the rest as strings.
func infoJSON(info map[string]string) map[string]any {
	m := make(map[string]any, len(info))
	for k, v := range info {
		switch k {
		case request.InfoHeaders, request.InfoRequestHeaders:
			h := map[string][]string{}
			for _, line := range lines(v) {
				name, value, _ := strings.Cut(line, ":")
				h[name] = append(h[name], strings.TrimSpace(value))
			}
			m[k] = h
		case request.InfoBodyBytes, request.InfoRedirects:
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				m[k] = n
				continue
			}
			m[k] = v
		default:
			m[k] = v
		}
	}
	return m
}
