package cmd

import (
	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner/tcp"
)

// tcpSource builds the source of --tcp HOST:PORT (the flags that cannot go
// with it are refused by attemptKind). Run and wait classify its
// attempts alike: a connection accepted succeeds, unless an acceptor says
// otherwise (a wait needs no acceptor).
func (o *Options) tcpSource(p *plan) error {
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
