package sources

import (
	"slices"

	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner/tcp"
)

// TCP is --tcp: each attempt a TCP connect (runner/tcp). Run and wait
// classify its attempts alike: a connection accepted succeeds, unless an
// acceptor says otherwise (a wait needs no acceptor).
var TCP = Source{
	Kind: acceptor.TCPAttempt, Name: "TCP", Key: "tcp", Exchange: "tcp",
	Flag: "tcp", Metavar: "HOST:PORT", Noun: "an address", Attempts: "TCP connects",
	Fallback: acceptor.ConnectFallback,
	Said:     func(*acceptor.Attempt) string { return "connection accepted" },
	New:      func() Options { return &tcpOptions{} },
}

// tcpOptions are the flag of a TCP connect.
type tcpOptions struct{ addr string }

func (o *tcpOptions) Register(fs *pflag.FlagSet) {
	fs.StringVar(&o.addr, "tcp", "", "connect to `HOST:PORT` instead of running a command: an attempt succeeds when the connection is accepted")
}

// Chosen: --tcp given, even empty (which Build refuses).
func (o *tcpOptions) Chosen(given func(string) bool) bool { return o.addr != "" || given("tcp") }

// Validate refuses the command's flags and every flag about an attempt's
// output: a connect has none.
func (o *tcpOptions) Validate(c *Context) error {
	if c.Shell || c.Foreground {
		return c.Usagef("--shell and --foreground run commands; they cannot go with --tcp")
	}
	for _, f := range slices.Concat(c.Foreign, []string{"error-pattern", "query", "input"}) {
		if c.Given(f) {
			return c.Usagef("--%s: cannot go with --tcp (a TCP connect has no output)", f)
		}
	}
	return nil
}

func (o *tcpOptions) Build(c *Context) (*Built, error) {
	src, err := tcp.New(o.addr)
	if err != nil {
		return nil, c.Usagef("--tcp: %v", err)
	}
	if c.AttemptTimeout > 0 {
		src.ConnectTimeout = -1 // --attempt-timeout bounds each connect instead
	}
	return &Built{Source: src, Describe: []string{"tcp", o.addr}}, nil
}

// Identity is the address as given.
func (o *tcpOptions) Identity(*Context) any { return o.addr }
