package plan

import (
	"runtime"
	"testing"
)

// identityOf builds the plan of `retry run|wait ARGS` and returns the
// identity of its command line.
func identityOf(t *testing.T, wait bool, args ...string) string {
	t.Helper()
	return identity(parseBuild(t, wait, args...))
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

// Identities do not change from one release to the next: a state file
// written by an earlier release keeps its sequence. These are the hashes
// that release wrote (the last one is that of a state file in
// runner/durable/testdata/written).
func TestIdentityIsStable(t *testing.T) {
	for _, c := range []struct {
		wait bool
		args []string
		want string
	}{
		{false, []string{"--", "job", "a b"}, "1b3a10081891392d6cad33405351c65dbba7b3b9cef1b2eaa2453b9b96dc86f7"},
		{false, []string{"--", "job", "a\"b\\c\x01\n\t<>&\u2028é\xff", ""}, "b9a6dba4c24a3f19e21b701298d451e438736d3289ff9be7fd837aeb5fa2df3a"},
		{false, []string{"--shell", "job 'a b'"}, "df094503f1c51fd0b0db75c4a95e34f1e0efe8dc8efe364c9165ce8f27a0c9af"},
		{false, []string{"--retry-exit", "1", "--failure-exit", "3", "--error-pattern", "code=(\\w+)<&>\"é\\\\", "--", "job"}, "f4a3fe870767e768a110bdfc9c584a6cc0041ebf5a5fde2359889edf5c0cac1f"},
		{true, []string{"--success", "x=1", "--failure", "state=a\"b\\c\x01\n\t<>&\u2028é\xff", "--input", "{\"a\": \"<&>\"}", "--", "job"}, "38fd4ee67cd71797bfc376bb8bc97effaa122d8072a90196147c05ce53e1e4ba"},
		{true, []string{"--waiter", "k8s:deployment-rolled-out", "--", "kubectl", "get", "deployment", "x", "-o", "json"}, "0ed6fbe10a4eb007f1a2e9aa5bd8478365f71f92a4ea168b2acae9f7169ed22c"},
		{false, []string{"--url", "http://127.0.0.1:1/a?q=<&>"}, "2d6aa77382bd2a30e44c0593a8af5afdb387bb72927842fd1b4ffddb3de0fdb3"},
		{false, []string{"--url", "http://127.0.0.1:1/a", "-X", "PUT", "-H", "X-A: 1", "-H", "X-B: <&>\"é", "--data", "a\"b\\c\x01\n\t<>&\u2028é\xff", "--idempotent"}, "8e29b708e0f43879d90448d20095d0506ba31ed9d774addf4ff4f7b38084f0db"},
		{false, []string{"--url", "http://127.0.0.1:1/a", "--data", ""}, "237028adbac4651a8986e976f12a610480ca4800bb6385563042bb96945ba54c"},
		{true, []string{"--url", "http://127.0.0.1:1/a", "--success", "status=200"}, "c0aae2aa72fb9066d5690b088664b1de1324a4663c55b57272ec14ab6e1f00f7"},
		{false, []string{"-n", "3", "-d", "0", "--", "/bin/false"}, "1de9403a40cb1e8624df2f554881bea87d3266273beaf368888908b68e20a40e"},
	} {
		if runtime.GOOS == "windows" && c.args[0] == "--shell" {
			continue // the identity holds the argv, cmd.exe's on Windows: a state file is one machine's
		}
		o, p := parseBuild(t, c.wait, c.args...)
		if got := identity(o, p); got != c.want {
			t.Errorf("%q (wait %v): identity %s, want %s (the identity of earlier releases)\n%s", c.args, c.wait, got, c.want, identityJSON(o, p))
		}
	}
}
