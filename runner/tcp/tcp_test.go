package tcp

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner"
)

func TestNewAcceptsHostPort(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:80", "localhost:5432", "[::1]:6379", "db.internal:65535", "h:1"} {
		if _, err := New(addr); err != nil {
			t.Errorf("New(%q): %v", addr, err)
		}
	}
	for _, addr := range []string{"", "localhost", ":80", "h:0", "h:65536", "h:http", "h:-1", "::1:80", "h:80:90"} {
		if _, err := New(addr); err == nil {
			t.Errorf("New(%q): want an error", addr)
		}
	}
}

func TestAttemptConnectsAndRefuses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	s, _ := New(addr)
	r := s.Attempt(context.Background(), 1, 0)
	if r.Attempt.Failed || r.Attempt.Err != nil || r.Exchange == nil || r.Exchange.Connected != addr {
		t.Fatalf("listening: failed %v, err %v, exchange %+v", r.Attempt.Failed, r.Attempt.Err, r.Exchange)
	}
	if r.Attempt.Kind != acceptor.TCPAttempt || r.Attempt.HasExitCode() {
		t.Fatalf("listening: kind %v, has an exit code %v; want TCP without", r.Attempt.Kind, r.Attempt.HasExitCode())
	}
	ln.Close()
	r = s.Attempt(context.Background(), 2, 0)
	if !r.Attempt.Failed || !r.Attempt.Transient || r.Stopped != nil || !strings.Contains(r.Attempt.Err.Error(), "connection refused") {
		t.Fatalf("closed: failed %v, transient %v, stopped %v, err %v", r.Attempt.Failed, r.Attempt.Transient, r.Stopped, r.Attempt.Err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(context.DeadlineExceeded)
	r = s.Attempt(ctx, 3, 0)
	if r.Stopped == nil || !r.Attempt.Skipped || r.Attempt.Kind != acceptor.TCPAttempt {
		t.Fatalf("a done context: stopped %v, skipped %v, kind %v; want stopped, skipped, TCP", r.Stopped, r.Attempt.Skipped, r.Attempt.Kind)
	}
}

// FuzzNew: any address is accepted or refused with an error that quotes
// it, never a panic; an accepted one splits into a host and a port 1-65535.
func FuzzNew(f *testing.F) {
	for _, s := range []string{"127.0.0.1:80", "[::1]:1", ":80", "h:0", "h:http", "[", "]:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		s, err := New(addr)
		if err != nil {
			return
		}
		host, port, err := net.SplitHostPort(s.Address)
		if err != nil || host == "" || port == "" {
			t.Fatalf("New(%q) accepted: host %q port %q, %v", addr, host, port, err)
		}
	})
}

// A connect that never completes (SYNs dropped) is stopped at
// DefaultConnectTimeout as a timed-out attempt, ConnectTimeout sets
// another bound, and a negative one leaves the bound to the context.
func TestConnectTimeout(t *testing.T) {
	hang := func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done()
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: ctx.Err()}
	}
	cases := []struct {
		name    string
		timeout time.Duration
		ctx     time.Duration // the attempt's own timeout, 0: none
		want    time.Duration
	}{
		{"default", 0, 0, DefaultConnectTimeout},
		{"set", 3 * time.Second, 0, 3 * time.Second},
		{"attempt timeout shorter", 0, 2 * time.Second, 2 * time.Second},
		{"none of its own", -1, time.Minute, time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, _ := New("127.0.0.1:9")
				s.ConnectTimeout, s.dial = c.timeout, hang
				ctx := context.Background()
				if c.ctx > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeoutCause(ctx, c.ctx, runner.ErrAttemptTimeout)
					defer cancel()
				}
				start := time.Now()
				r := s.Attempt(ctx, 1, 0)
				if got := time.Since(start); got != c.want {
					t.Errorf("the connect took %v, want %v", got, c.want)
				}
				if !errors.Is(r.Stopped, runner.ErrAttemptTimeout) || !r.Attempt.Failed {
					t.Errorf("stopped %v, failed %v; want a timed-out attempt", r.Stopped, r.Attempt.Failed)
				}
			})
		})
	}
}
