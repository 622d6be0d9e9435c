package plan

import (
	"testing"

	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/spf13/pflag"
)

// identityOf builds the plan of `retry run|wait ARGS` and returns the
// identity of its command line.
func identityOf(t *testing.T, wait bool, args ...string) string {
	t.Helper()
	o := New(wait, &iostreams.IOStreams{})
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	o.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	o.Args = fs.Args()
	if err := o.ApplyEnv(fs); err != nil {
		t.Fatal(err)
	}
	p, err := Build(o)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	defer p.Close()
	return Identity(o, p)
}

// The identity covers what an attempt does and how it is classified, not
// the timing, budget or output flags; a command string is split first.
func TestIdentity(t *testing.T) {
	base := identityOf(t, false, "--", "job", "a b")
	for _, args := range [][]string{
		{"-n", "3", "-d", "5s", "--max-time", "1h", "-q", "--report", "r.json", "--", "job", "a b"},
		{"--schedule", "10 5m 2h", "--attempt-timeout", "1m", "--mode", "off", "--state", "s.json", "--", "job", "a b"},
		{`job "a b"`},
	} {
		if got := identityOf(t, false, args...); got != base {
			t.Errorf("%q: another identity than `-- job 'a b'`", args)
		}
	}
	seen := map[string][]string{base: {"--", "job", "a b"}}
	for _, c := range []struct {
		wait bool
		args []string
	}{
		{false, []string{"--", "job", "a", "b"}},
		{false, []string{"--", "job2", "a b"}},
		{false, []string{"--retry-exit", "1", "--", "job", "a b"}},
		{false, []string{"--retry-exit", "2", "--", "job", "a b"}},
		{false, []string{"--retry-exit", "1", "--failure-exit", "3", "--", "job", "a b"}},
		{false, []string{"--failure-exit", "3", "--retry-exit", "1", "--", "job", "a b"}},
		{false, []string{"--error-pattern", "code=(\\w+)", "--", "job", "a b"}},
		{false, []string{"--shell", "job 'a b'"}},
		{true, []string{"--success", "x=1", "--", "job", "a b"}},
		{false, []string{"--success", "x=1", "--", "job", "a b"}},
		{false, []string{"--url", "http://127.0.0.1:1/a"}},
		{false, []string{"--url", "http://127.0.0.1:1/b"}},
		{false, []string{"--url", "http://127.0.0.1:1/a", "-X", "PUT"}},
		{false, []string{"--url", "http://127.0.0.1:1/a", "-H", "X-A: 1"}},
		{false, []string{"--url", "http://127.0.0.1:1/a", "--data", "x"}},
	} {
		id := identityOf(t, c.wait, c.args...)
		if prev, ok := seen[id]; ok {
			t.Errorf("%q (wait %v) has the identity of %q", c.args, c.wait, prev)
		}
		seen[id] = c.args
	}
}
