package plan

import (
	"runtime"
	"testing"

	"github.com/retry-dev/retry/cmd/internal/exit"
)

func TestArgv(t *testing.T) {
	cases := []struct {
		shell bool
		args  []string
		want  []string
		usage bool
	}{
		{false, []string{"ls", "-l"}, []string{"ls", "-l"}, false},
		{false, []string{`grep "a b" f`}, []string{"grep", "a b", "f"}, false},
		{false, []string{"a && b"}, nil, true},
		{true, []string{"a && b"}, wantShellArgv("a && b"), false},
		{true, []string{"a", "b"}, nil, true},
		{false, nil, nil, true},
	}
	for _, c := range cases {
		o := newRun(nil).options()
		o.Process.Shell, o.Args = c.shell, c.args
		got, err := o.argv()
		if c.usage {
			if ee, ok := err.(*exit.Error); !ok || ee.Code != exit.Usage {
				t.Errorf("%q (shell %v): error %v, want a usage error", c.args, c.shell, err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%q: got %q, %v; want %q", c.args, got, err, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: got %q, want %q", c.args, got, c.want)
			}
		}
	}
}

// wantShellArgv is what --shell SCRIPT runs by default: /bin/sh -c SCRIPT, and
// cmd.exe's own quoting on Windows (docs/windows.md).
func wantShellArgv(script string) []string {
	if runtime.GOOS == "windows" {
		return []string{"cmd.exe", "/d", "/s", "/c", script}
	}
	return []string{"/bin/sh", "-c", script}
}
