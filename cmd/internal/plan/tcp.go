package plan

import (
	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/runner/tcp"
)

// tcpSource builds the source of --tcp HOST:PORT (the flags that cannot go
// with it are refused by attemptKind). Run and wait classify its
// attempts alike: a connection accepted succeeds, unless an acceptor says
// otherwise (a wait needs no acceptor).
func (o *Options) tcpSource(p *Plan) error {
	src, err := tcp.New(o.Net.TCP)
	if err != nil {
		return exit.Usagef("--tcp: %v", err)
	}
	if o.Budget.AttemptTimeout > 0 {
		src.ConnectTimeout = -1 // --attempt-timeout bounds each connect instead
	}
	p.Strategy.Chain.Fallback = acceptor.ConnectFallback
	p.Describe = []string{"tcp", o.Net.TCP}
	p.Source = src
	return nil
}
