package plan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/runner"
)

// highRand always draws the top of the range: jitter and the waiter
// formula then give their largest delay.
type highRand struct{}

func (highRand) Int64N(n int64) int64 { return n - 1 }

// planFor parses args as run's (wait's) flags, with the command true, and
// builds the plan.
func planFor(t *testing.T, wait bool, args ...string) *Plan {
	t.Helper()
	return buildPlan(t, wait, []string{"true"}, args...)
}

// buildPlan parses args as run's (wait's) flags, with command (nil for
// --url and --tcp), and builds the plan.
func buildPlan(t *testing.T, wait bool, command []string, args ...string) *Plan {
	t.Helper()
	_, p := parseBuild(t, wait, append(append(args[:len(args):len(args)], "--"), command...)...)
	return p
}

// parseBuild parses args as `retry run|wait ARGS` does (flags up to the
// command, then the command), applies the RETRY_ variables and builds the
// plan, closed when the test ends. The package's tests build their plans
// with it.
func parseBuild(t *testing.T, wait bool, args ...string) (*Options, *Plan) {
	t.Helper()
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { devnull.Close() })
	c := newCommand(wait, &iostreams.IOStreams{In: devnull, Out: devnull, ErrOut: devnull, Getenv: os.Getenv})
	o := c.options()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	c.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	o.Args = fs.Args()
	if err := o.ApplyEnv(fs); err != nil {
		t.Fatal(err)
	}
	p, err := Build(c)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	t.Cleanup(p.Close)
	return o, p
}

// schedule runs p's strategy in a synctest bubble on a source that fails
// until attempt succeedOn (0: never; a wait's attempts succeed but match no
// acceptor until then) and returns when each attempt started, from the
// start of the run.
func schedule(t *testing.T, p *Plan, succeedOn int) []time.Duration {
	t.Helper()
	var starts []time.Duration
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		src := runner.SourceFunc(func(ctx context.Context, n, max int) *runner.Result {
			starts = append(starts, time.Since(start))
			if n == succeedOn || p.Strategy.Chain.Fallback != nil && wait(p) {
				return &runner.Result{Attempt: &acceptor.Attempt{}}
			}
			return &runner.Result{Attempt: &acceptor.Attempt{ExitCode: 1, Failed: true}}
		})
		p.Strategy.Run(context.Background(), src)
	})
	return starts
}

// wait reports whether p is a wait's: its attempts succeed and match no
// acceptor (empty stdout is {}), so they are polled again.
func wait(p *Plan) bool {
	d, _ := p.Strategy.Chain.Fallback(&acceptor.Attempt{})
	return d == acceptor.RetryServer
}

func seconds(ds ...float64) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = time.Duration(d * float64(time.Second))
	}
	return out
}

// TestJitterDefaults: full jitter for exponential and decorrelated, none for
// constant, linear, fibonacci and the schedule; an explicit --jitter wins.
func TestJitterDefaults(t *testing.T) {
	exact := []struct {
		args []string
		want []time.Duration
	}{
		{[]string{"--backoff", "constant", "-d", "5s", "-n", "4"}, seconds(0, 5, 10, 15)},
		{[]string{"--backoff", "linear", "-d", "1s", "-n", "4"}, seconds(0, 1, 3, 6)},
		{[]string{"--backoff", "fibonacci", "-d", "1s", "-n", "5"}, seconds(0, 1, 2, 4, 7)},
		{[]string{"--schedule", "3 1s 3s"}, seconds(0, 1, 3, 6)},
		{[]string{"--jitter", "none", "-n", "4"}, seconds(0, 1, 3, 7)},
		{[]string{"--backoff", "Constant", "-d", "2s", "-n", "3"}, seconds(0, 2, 4)},
	}
	for _, c := range exact {
		p := planFor(t, false, c.args...)
		if got := schedule(t, p, 0); !slices.Equal(got, c.want) {
			t.Errorf("%q: attempts at %v, want %v", c.args, got, c.want)
		}
	}
	// Jittered: every delay within [0, cap], and not all at the cap.
	for _, args := range [][]string{
		{"-n", "8"},
		{"--backoff", "constant", "--jitter", "full", "-d", "4s", "-n", "8"},
	} {
		p := planFor(t, false, args...)
		got := schedule(t, p, 0)
		unjittered := planFor(t, false, append(args, "--jitter", "none")...)
		want := schedule(t, unjittered, 0)
		same := 0
		for i := 1; i < len(got); i++ {
			d, cap := got[i]-got[i-1], want[i]-want[i-1]
			if d < 0 || d > cap {
				t.Errorf("%q: delay %d is %v, outside [0, %v]", args, i, d, cap)
			}
			if d == cap {
				same++
			}
		}
		if same == len(got)-1 {
			t.Errorf("%q: no delay was jittered: %v", args, got)
		}
	}
}

// TestWaitDelayZero: --delay 0 is valid for the waiter backoff, which then
// does not wait at all.
func TestWaitDelayZero(t *testing.T) {
	p := planFor(t, true, "--delay", "0", "-n", "5", "--success", "ready")
	p.Strategy.Rand = highRand{}
	if got, want := schedule(t, p, 0), seconds(0, 0, 0, 0, 0); !slices.Equal(got, want) {
		t.Errorf("attempts at %v, want %v", got, want)
	}
}

// TestWaitMaxDelay: without a waiter model, wait's delays are capped at 30s;
// a Smithy model brings its own (120s by default).
func TestWaitMaxDelay(t *testing.T) {
	p := planFor(t, true, "-n", "8", "--max-time", "0", "--success", "ready")
	p.Strategy.Rand = highRand{}
	// The waiter formula at its top: min(30s, 2s·2^(n-1)).
	if got, want := schedule(t, p, 0), seconds(0, 2, 6, 14, 30, 60, 90, 120); !slices.Equal(got, want) {
		t.Errorf("without a model: attempts at %v, want %v", got, want)
	}
	model, err := filepath.Abs("../../../acceptor/waitermodel/testdata/smithy-model.json")
	if err != nil {
		t.Fatal(err)
	}
	// ThingExists: minDelay 5s, maxDelay unset (120s).
	p = planFor(t, true, "-n", "7", "--max-time", "0", "--waiter-file", model, "--waiter", "ThingExists")
	p.Strategy.Rand = highRand{}
	if got, want := schedule(t, p, 0), seconds(0, 5, 15, 35, 75, 155, 275); !slices.Equal(got, want) {
		t.Errorf("Smithy model: attempts at %v, want %v", got, want)
	}
}

// TestUnlimitedAttempts: -n 0 without --max-time goes on until a success
// (no token bucket cuts it short without --scope).
func TestUnlimitedAttempts(t *testing.T) {
	p := planFor(t, false, "-n", "0", "--backoff", "constant", "-d", "1s")
	got := schedule(t, p, 50)
	if len(got) != 50 || got[49] != 49*time.Second {
		t.Errorf("%d attempts, the last at %v; want 50, at 49s", len(got), got[len(got)-1])
	}
	// The schedule without a COUNT retries forever too.
	p = planFor(t, false, "--schedule", "1s 2s")
	if got := schedule(t, p, 6); !slices.Equal(got, seconds(0, 1, 3, 5, 7, 9)) {
		t.Errorf("--schedule '1s 2s': attempts at %v", got)
	}
}

// TestReadinessDelays: retry wait on --tcp or --url naming no waiter model
// is a readiness check: 100ms doubling to a cap of 1s, no jitter; flags
// win; a waiter model keeps its own timing; run keeps run's.
func TestReadinessDelays(t *testing.T) {
	readiness := seconds(0, 0.1, 0.3, 0.7, 1.5, 2.5, 3.5)
	cases := []struct {
		wait bool
		args []string
		want []time.Duration // nil: not a readiness schedule
	}{
		{true, []string{"--tcp", "127.0.0.1:9", "-n", "7"}, readiness},
		{true, []string{"--url", "http://127.0.0.1:9/", "-n", "7"}, readiness},
		{true, []string{"--url", "http://127.0.0.1:9/", "-n", "7", "--success", "status=ok"}, readiness},
		{true, []string{"--tcp", "127.0.0.1:9", "-n", "4", "-d", "1s", "--backoff", "constant"}, seconds(0, 1, 2, 3)},
		{true, []string{"--tcp", "127.0.0.1:9", "-n", "4", "--max-delay", "200ms"}, seconds(0, 0.1, 0.3, 0.5)},
		{false, []string{"--tcp", "127.0.0.1:9", "-n", "3", "--jitter", "none"}, seconds(0, 1, 3)},
	}
	for _, c := range cases {
		p := buildPlan(t, c.wait, nil, c.args...)
		p.Strategy.Rand = highRand{}
		// Every attempt fails as a refused connect would: retried.
		var starts []time.Duration
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			p.Strategy.Run(context.Background(), runner.SourceFunc(func(ctx context.Context, n, max int) *runner.Result {
				starts = append(starts, time.Since(start))
				return &runner.Result{Attempt: &acceptor.Attempt{Failed: true, Transient: true, Err: os.ErrDeadlineExceeded}}
			}))
		})
		if !slices.Equal(starts, c.want) {
			t.Errorf("wait=%v %q: attempts at %v, want %v", c.wait, c.args, starts, c.want)
		}
	}
}

// TestKubernetesWaiterDelays: a k8s: waiter polls 1s after the first
// attempt, then with the Smithy formula capped at 5s, within wait's
// --max-time; -d and --max-delay override both. The attempts fail as
// kubectl does when the API server is unavailable, which a wait polls
// again with the waiter's timing.
func TestKubernetesWaiterDelays(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []time.Duration
	}{
		{[]string{"-n", "7", "--waiter", "k8s:pod-ready"}, seconds(0, 1, 3, 7, 12, 17, 22)},
		{[]string{"-n", "5", "--waiter", "k8s:PodReady", "-d", "2s", "--max-delay", "3s"}, seconds(0, 2, 5, 8, 11)},
	} {
		p := planFor(t, true, tt.args...)
		if p.MaxTime != 10*time.Minute {
			t.Errorf("%q: --max-time %s, want wait's 10m", tt.args, p.MaxTime)
		}
		p.Strategy.Rand = highRand{}
		var starts []time.Duration
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			src := runner.SourceFunc(func(ctx context.Context, n, max int) *runner.Result {
				starts = append(starts, time.Since(start))
				return &runner.Result{Attempt: &acceptor.Attempt{ExitCode: 1, Failed: true, ErrorCode: "ServiceUnavailable"}}
			})
			p.Strategy.Run(context.Background(), src)
		})
		if !slices.Equal(starts, tt.want) {
			t.Errorf("%q: attempts at %v, want %v", tt.args, starts, tt.want)
		}
	}
}

// newCommand returns wait's options (wait true) or run's.
func newCommand(wait bool, io *iostreams.IOStreams) Command {
	if wait {
		return newWait(io)
	}
	return newRun(io)
}
