package plan

import (
	"testing"
	"time"
)

// planOf builds the plan of `retry run ARGS`.
func planOf(t *testing.T, args ...string) (*Options, *Plan) {
	t.Helper()
	return parseBuild(t, false, args...)
}

// A Redis state lock outlasts the attempt: its bound (--attempt-timeout,
// else --max-time, the shorter of the two) plus --kill-after and a margin;
// an attempt without a bound gets none (the store renews a short lock).
func TestLockTTL(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"--attempt-timeout", "2m"}, 2*time.Minute + 5*time.Second + lockMargin},
		{[]string{"--attempt-timeout", "2m", "--kill-after", "1s"}, 2*time.Minute + time.Second + lockMargin},
		{[]string{"--max-time", "10m"}, 10*time.Minute + 5*time.Second + lockMargin},
		{[]string{"--max-time", "1m", "--attempt-timeout", "5m"}, time.Minute + 5*time.Second + lockMargin},
		{[]string{"--max-time", "1h", "--attempt-timeout", "5m"}, 5*time.Minute + 5*time.Second + lockMargin},
		{nil, 0},
	} {
		args := append(append([]string{"--state", "redis://127.0.0.1/job"}, c.args...), "--", "true")
		o, p := planOf(t, args...)
		if got := lockTTL(o, p); got != c.want {
			t.Errorf("%q: lock TTL %v, want %v", c.args, got, c.want)
		}
		if p.State == nil || p.State.Key == nil || p.State.Name != "redis://127.0.0.1/job" {
			t.Errorf("%q: state %+v, want the key redis://127.0.0.1/job", c.args, p.State)
		}
	}
	_, p := planOf(t, "--state", "dir/job.json", "--", "true")
	if p.State == nil || p.State.Key != nil || p.State.Name != "dir/job.json" {
		t.Errorf("--state dir/job.json: state %+v, want the file", p.State)
	}
}
