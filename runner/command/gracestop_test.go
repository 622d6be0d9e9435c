//go:build linux

package command

import (
	"testing"
	"time"
)

// A stop's grace is cut to what is left before the run's deadline (a
// wait's --max-time includes it); past it, SIGKILL at once.
func TestGraceLeft(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		grace  time.Duration
		killBy time.Time
		want   time.Duration
	}{
		{5 * time.Second, time.Time{}, 5 * time.Second},
		{5 * time.Second, now.Add(2 * time.Second), 2 * time.Second},
		{time.Second, now.Add(2 * time.Second), time.Second},
		{5 * time.Second, now, -1},
		{5 * time.Second, now.Add(-time.Second), -1},
		{-1, now.Add(time.Minute), -1},
	} {
		p := &process{grace: tc.grace, killBy: tc.killBy}
		if got := p.graceLeft(now); got != tc.want {
			t.Errorf("grace %v, kill by now%+v: got %v, want %v", tc.grace, tc.killBy.Sub(now), got, tc.want)
		}
	}
}
