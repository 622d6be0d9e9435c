package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
)

// optionsWithEnv parses args as run's flags and applies the environment
// env (nothing else of the test's own environment).
func optionsWithEnv(t *testing.T, env map[string]string, args ...string) (*Options, error) {
	t.Helper()
	c := newRun(&iostreams.IOStreams{Getenv: func(k string) string { return env[k] }})
	o := c.options()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	c.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return o, o.ApplyEnv(fs)
}

// The environment never switches --shell on: a RETRY_SHELL default would
// turn every command string into a shell script. Whatever its value, it is
// refused with a usage error (125) naming the variable and what to do; a
// --shell on the command line is the user's, and RETRY_SHELL_PATH, which
// only names the shell for the runs that ask for one, is a default like
// any other.
func TestShellNotFromEnvironment(t *testing.T) {
	const refused = "RETRY_SHELL: --shell cannot be switched on from the environment (a command string would silently run as a shell script); give --shell on the command line, or unset RETRY_SHELL"
	for _, v := range []string{"1", "true", "yes", "0"} {
		o, err := optionsWithEnv(t, map[string]string{"RETRY_SHELL": v, "RETRY_ATTEMPTS": "7"})
		var ee *exit.Error
		if !errors.As(err, &ee) || ee.Code != exit.Usage || ee.Msg != refused {
			t.Errorf("RETRY_SHELL=%s: error %v, want the usage error %q", v, err, refused)
		}
		if o.Process.Shell {
			t.Errorf("RETRY_SHELL=%s: --shell is on", v)
		}
	}

	o, err := optionsWithEnv(t, map[string]string{"RETRY_SHELL": "1"}, "--shell")
	if err != nil || !o.Process.Shell || o.fromEnv["shell"] {
		t.Errorf("--shell with RETRY_SHELL=1: error %v, shell %v, from the environment %v; want the command line's --shell", err, o.Process.Shell, o.fromEnv["shell"])
	}

	o, err = optionsWithEnv(t, map[string]string{"RETRY_SHELL_PATH": "/bin/bash"})
	if err != nil || o.Process.Shell || !o.fromEnv["shell-path"] || o.Process.ShellPath != "/bin/bash" {
		t.Errorf("RETRY_SHELL_PATH=/bin/bash: error %v, shell %v, shell path %q (from the environment %v); want the path as a default, --shell off",
			err, o.Process.Shell, o.Process.ShellPath, o.fromEnv["shell-path"])
	}
}

// Every flag of run and wait has its default in RETRY_ and the flag's name
// in upper case with '_' for '-' (RETRY_MAX_TIME for --max-time).
func TestEnvKeyOfEveryFlag(t *testing.T) {
	for _, wait := range []bool{false, true} {
		fs := pflag.NewFlagSet("", pflag.ContinueOnError)
		newCommand(wait, &iostreams.IOStreams{}).Register(fs)
		fs.VisitAll(func(f *pflag.Flag) {
			if got, want := envKey(f.Name), "RETRY_"+strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_")); got != want {
				t.Errorf("--%s: envKey %q, want %q", f.Name, got, want)
			}
		})
	}
	if got := envKey("max-retry-after"); got != "RETRY_MAX_RETRY_AFTER" {
		t.Errorf("envKey(max-retry-after) = %q", got)
	}
}
