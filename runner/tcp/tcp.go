// Package tcp is the attempt source of --tcp HOST:PORT: an attempt succeeds
// when a TCP connection to the address is accepted, the job of wait-for-it,
// wait-on tcp: and dockerize -wait.
package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner"
)

// DefaultConnectTimeout bounds a connect when nothing else does: a port
// whose SYNs are dropped (a firewall, a host that is gone) would otherwise
// hold an attempt for the kernel's own limit, about two minutes on Linux.
// A connect on a network that answers takes milliseconds; 10 seconds let the
// kernel resend a lost SYN three times.
const DefaultConnectTimeout = 10 * time.Second

// Source connects to Address at every attempt and closes the connection
// at once. Build it with New.
type Source struct {
	// Address is HOST:PORT as given; the host is resolved at every attempt,
	// so a DNS record that appears later is found.
	Address string
	// ConnectTimeout bounds each connect, name resolution included; a
	// connect that takes longer is stopped as one that timed out
	// (runner.ErrAttemptTimeout: retry, timeout). 0 means
	// DefaultConnectTimeout; a negative value, no bound of its own (the
	// CLI's --attempt-timeout bounds the attempt instead).
	ConnectTimeout time.Duration
	dialer         net.Dialer
	// dial connects; nil is dialer.DialContext. Tests replace it.
	dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// New validates addr (HOST:PORT, [IPv6]:PORT; HOST not empty, PORT a
// number from 1 to 65535) and returns its source.
func New(addr string) (*Source, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%q: want HOST:PORT (or [IPv6]:PORT): %v", addr, strings.TrimPrefix(err.Error(), "address "+addr+": "))
	}
	if host == "" {
		return nil, fmt.Errorf("%q: want HOST:PORT: the host is empty (127.0.0.1:%s for this machine)", addr, port)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return nil, fmt.Errorf("%q: want HOST:PORT with PORT a number from 1 to 65535", addr)
	}
	return &Source{Address: addr}, nil
}

// Attempt connects to the address. A connection accepted is a successful
// attempt (Kind TCPAttempt, no error). A refused, reset or unreachable connect
// and a DNS failure (the name may not exist yet) are transient errors, which
// the fallbacks retry on the client side; a connect stopped by ctx (the
// attempt timeout, the deadline, a signal) or by ConnectTimeout
// (runner.ErrAttemptTimeout) has Stopped set to the cause.
func (s *Source) Attempt(ctx context.Context, n, max int) *runner.Result {
	a := &acceptor.Attempt{Number: n, Kind: acceptor.TCPAttempt}
	res := &runner.Result{Attempt: a}
	if ctx.Err() != nil {
		res.Stopped = context.Cause(ctx)
		a.Failed, a.Skipped, a.Err = true, true, res.Stopped
		return res
	}
	bound := s.ConnectTimeout
	if bound == 0 {
		bound = DefaultConnectTimeout
	}
	if bound > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, bound, runner.ErrAttemptTimeout)
		defer cancel()
	}
	dial := s.dial
	if dial == nil {
		dial = s.dialer.DialContext
	}
	c, err := dial(ctx, "tcp", s.Address)
	if err == nil {
		res.Exchange = &runner.Exchange{Connected: c.RemoteAddr().String()}
		c.Close()
		return res
	}
	a.Failed = true
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		// The dialer gives up at ctx's deadline on its own timer, which may
		// fire before ctx's: wait for ctx to say why.
		<-ctx.Done()
	}
	if ctx.Err() != nil {
		res.Stopped = context.Cause(ctx)
		a.Err = res.Stopped
		return res
	}
	a.Err = errors.New(describe(err))
	a.Transient = true // refused, reset, unreachable, timed out, DNS: all may change
	return res
}

// describe shortens a dial error to what happened: "connect to
// 127.0.0.1:8080: connection refused", "lookup db.internal: no such host".
func describe(err error) string {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "lookup " + dns.Name + ": " + dns.Err
	}
	var op *net.OpError
	if errors.As(err, &op) {
		addr := ""
		if op.Addr != nil {
			addr = op.Addr.String()
		}
		inner := op.Err
		var sys interface{ Unwrap() error }
		if errors.As(inner, &sys) && sys.Unwrap() != nil {
			inner = sys.Unwrap()
		}
		return "connect to " + addr + ": " + inner.Error()
	}
	return err.Error()
}
