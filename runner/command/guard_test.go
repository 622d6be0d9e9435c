package command

import (
	"errors"
	"testing"

	"github.com/retry-dev/retry/runner/output"
)

// The guard fails the attempt once, on the first problem, and counts
// output against the limit.
func TestAttemptGuard(t *testing.T) {
	var stops []error
	g := &attemptGuard{stop: func(err error) { stops = append(stops, err) }, limit: 10}
	if !g.count(10) {
		t.Fatalf("10 bytes of 10 failed")
	}
	if g.count(1) {
		t.Fatalf("11 bytes of 10 passed")
	}
	g.fail(&output.StreamError{Stream: "stdout", Err: errors.New("x")})
	var limit *output.LimitError
	if len(stops) != 1 || !errors.As(g.problem(), &limit) || limit.Error() != "output exceeded --max-output 10B" {
		t.Errorf("stops %v, problem %v", stops, g.problem())
	}
}
