package command

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/retry-dev/retry/runner/output"
)

// ErrTerminalStop is the Err of an attempt whose leader was stopped by
// SIGTTIN or SIGTTOU: it tried to use the terminal from a background process
// group. The attempt is killed and fails; it is not retried.
var ErrTerminalStop = errors.New("stopped waiting for the terminal")

// attemptGuard collects what went wrong with an attempt's streams, the first
// problem first, and stops the attempt when it happens.
type attemptGuard struct {
	stop func(error) // stops the attempt's processes

	mu     sync.Mutex
	err    error // a *output.StreamError or *output.LimitError
	limit  int64 // 0: none
	kept   int64 // bound of kept stdout
	output atomic.Int64
}

// fail records err, when it is the first problem, and stops the attempt.
func (g *attemptGuard) fail(err error) {
	g.mu.Lock()
	first := g.err == nil
	if first {
		g.err = err
	}
	g.mu.Unlock()
	if first && g.stop != nil {
		g.stop(err)
	}
}

func (g *attemptGuard) problem() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// count adds n bytes of output and reports false, after failing the
// attempt, when they pass the limit.
func (g *attemptGuard) count(n int) bool {
	total := g.output.Add(int64(n))
	if g.limit > 0 && total > g.limit {
		g.fail(&output.LimitError{Limit: g.limit})
		return false
	}
	return true
}
