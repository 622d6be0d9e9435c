package cmd

import (
	"strings"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner/tcp"
)

// tcpSource builds the source of --tcp HOST:PORT. Run and wait classify its
// attempts alike: a connection accepted succeeds, unless an acceptor says
// otherwise (a wait needs no acceptor).
func (o *Options) tcpSource(p *plan) error {
	if len(o.Args) > 0 {
		return usageError("--tcp: give either an address or a command, not both (got %q)", strings.Join(o.Args, " "))
	}
	if o.URL != "" {
		return usageError("--tcp: give either --tcp HOST:PORT or --url URL, not both")
	}
	if o.Shell || o.Foreground {
		return usageError("--shell and --foreground run commands; they cannot go with --tcp")
	}
	for _, f := range []string{"request", "header", "data", "cacert", "insecure", "idempotent", "idempotency-key", "error-pattern", "query", "input"} {
		if o.given(f) {
			return usageError("--%s: cannot go with --tcp (a TCP connect has no output)", f)
		}
	}
	src, err := tcp.New(o.TCP)
	if err != nil {
		return usageError("--tcp: %v", err)
	}
	p.strategy.Chain.Fallback = acceptor.ConnectFallback
	p.http = true // no exit status of its own: a run that fails exits 1
	p.describe = []string{"tcp", o.TCP}
	p.source = src
	return nil
}
