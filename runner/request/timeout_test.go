package request

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/runner"
)

// A server that takes the request and never answers stops the call at
// DefaultHeaderTimeout as a timed-out attempt; HeaderTimeout sets another
// bound, a negative one leaves the bound to the context, and a body that
// comes after the headers is not cut by the bound.
func TestHeaderTimeout(t *testing.T) {
	cases := []struct {
		name    string
		timeout time.Duration
		ctx     time.Duration // the attempt's own timeout, 0: none
		want    time.Duration
	}{
		{"default", 0, 0, DefaultHeaderTimeout},
		{"set", 3 * time.Second, 0, 3 * time.Second},
		{"attempt timeout shorter", 0, 2 * time.Second, 2 * time.Second},
		{"none of its own", -1, 5 * time.Minute, 5 * time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, err := New(Config{URL: "http://127.0.0.1:9/", HeaderTimeout: c.timeout})
				if err != nil {
					t.Fatal(err)
				}
				defer h.Close()
				h.transport.DialContext = func(context.Context, string, string) (net.Conn, error) {
					client, server := net.Pipe()
					go io.Copy(io.Discard, server) // reads the request, never answers
					return client, nil
				}
				ctx := context.Background()
				if c.ctx > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeoutCause(ctx, c.ctx, runner.ErrAttemptTimeout)
					defer cancel()
				}
				start := time.Now()
				r := h.Attempt(ctx, 1, 0)
				if got := time.Since(start); got != c.want {
					t.Errorf("the call took %v, want %v", got, c.want)
				}
				if !errors.Is(r.Stopped, runner.ErrAttemptTimeout) || !r.Attempt.Failed {
					t.Errorf("stopped %v, failed %v; want a timed-out attempt", r.Stopped, r.Attempt.Failed)
				}
			})
		})
	}
	t.Run("slow body", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h, err := New(Config{URL: "http://127.0.0.1:9/", HeaderTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			h.transport.DialContext = func(context.Context, string, string) (net.Conn, error) {
				client, server := net.Pipe()
				go func() {
					defer server.Close()
					if _, err := http.ReadRequest(bufio.NewReader(server)); err != nil {
						return
					}
					io.WriteString(server, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab")
					time.Sleep(time.Minute) // the body's end comes long after the bound
					io.WriteString(server, "cd")
				}()
				return client, nil
			}
			r := h.Attempt(context.Background(), 1, 0)
			if r.Stopped != nil || r.Attempt.Failed || r.Attempt.Err != nil {
				t.Fatalf("stopped %v, failed %v, err %v; want a success", r.Stopped, r.Attempt.Failed, r.Attempt.Err)
			}
			if r.Release != nil {
				r.Release()
			}
		})
	})
}
