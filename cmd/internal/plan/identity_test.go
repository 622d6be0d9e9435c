package plan

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

// identityOf builds the plan of `retry run|wait ARGS` and returns the
// identity of its command line.
func identityOf(t *testing.T, wait bool, args ...string) string {
	t.Helper()
	return Identity(parseBuild(t, wait, args...))
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
		{false, []string{"--tcp", "127.0.0.1:1"}},
		{false, []string{"--tcp", "127.0.0.1:2"}},
		{true, []string{"--tcp", "127.0.0.1:1"}},
	} {
		id := identityOf(t, c.wait, c.args...)
		if prev, ok := seen[id]; ok {
			t.Errorf("%q (wait %v) has the identity of %q", c.args, c.wait, prev)
		}
		seen[id] = c.args
	}
}

// identityMap is the object Identity hashes, as state files' identities
// were always made: json.Marshal of this map (sorted keys).
func identityMap(o *Options, p *Plan) map[string]any {
	id := map[string]any{"subcommand": o.Name()}
	switch p.Kind {
	case acceptor.HTTPAttempt:
		id["http"] = map[string]any{"method": p.Describe[0], "url": o.Net.URL, "headers": o.Net.Headers,
			"data": o.Net.Data, "data_given": o.Given("data"), "idempotent": o.Net.Idempotent}
	case acceptor.TCPAttempt:
		id["tcp"] = o.Net.TCP
	default:
		id["argv"] = p.Describe
	}
	acc := make([]string, len(o.Accept.List.specs))
	for i, s := range o.Accept.List.specs {
		acc[i] = "--" + s.flag + "=" + s.value
	}
	id["acceptors"] = acc
	id["error_pattern"] = o.Accept.ErrorPattern
	id["input"] = o.Accept.Input
	id["waiter"] = []string{o.Waiter.File, o.Waiter.Name}
	return id
}

// The identity's bytes, appended by hand, are json.Marshal's of the map
// identities have always been made of: a state file written by an earlier
// release keeps its sequence.
func TestIdentityJSONIsEncodingJSON(t *testing.T) {
	odd := "a\"b\\c\x01\n\t<>&\u2028é\xff"
	for _, c := range []struct {
		wait bool
		args []string
	}{
		{false, []string{"--", "job", "a b"}},
		{false, []string{"--", "job", odd, ""}},
		{false, []string{"--shell", "job 'a b'"}},
		{false, []string{"--retry-exit", "1", "--failure-exit", "3", "--error-pattern", `code=(\w+)<&>"é\\`, "--", "job"}},
		{true, []string{"--success", "x=1", "--failure", "state=" + odd, "--input", `{"a": "<&>"}`, "--", "job"}},
		{true, []string{"--waiter", "k8s:deployment-rolled-out", "--", "kubectl", "get", "deployment", "x", "-o", "json"}},
		{false, []string{"--url", "http://127.0.0.1:1/a?q=<&>"}},
		{false, []string{"--url", "http://127.0.0.1:1/a", "-X", "PUT", "-H", "X-A: 1", "-H", `X-B: <&>"é`, "--data", odd, "--idempotent"}},
		{false, []string{"--url", "http://127.0.0.1:1/a", "--data", ""}},
		{true, []string{"--url", "http://127.0.0.1:1/a", "--success", "status=200"}},
		{false, []string{"--tcp", "127.0.0.1:1"}},
		{true, []string{"--tcp", "db.example:5432", "--consecutive", "2"}},
	} {
		o, p := parseBuild(t, c.wait, c.args...)
		want, err := json.Marshal(identityMap(o, p))
		if err != nil {
			t.Fatal(err)
		}
		if got := identityJSON(o, p); !bytes.Equal(got, want) {
			t.Errorf("%q: identity\n%s\nwant (json.Marshal)\n%s", c.args, got, want)
		}
	}
}
