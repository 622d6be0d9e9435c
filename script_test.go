//go:build unix

package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/retry-dev/retry/cmd"
)

// scriptPrograms are the programs scripts run with exec: the retry binary
// itself and helper children, all re-executions of this test binary. Files
// *_test.go add theirs in init.
var scriptPrograms = map[string]func(){
	"retry": func() {
		if c := scriptClock(); c != nil { // `clock start` (clock_test.go)
			os.Exit(cmd.MainWithBudgetClock(c.Now, c.Sleep))
		}
		os.Exit(cmd.Main())
	},
}

// scriptCommands are custom script commands, added in init by *_test.go.
var scriptCommands = map[string]func(ts *testscript.TestScript, neg bool, args []string){}

func TestMain(m *testing.M) {
	testscript.Main(m, scriptPrograms)
}

func TestScripts(t *testing.T) {
	// A test started with signals ignored (under nohup, or as a background
	// job of a script: SIGINT and SIGQUIT) would hand that on to every
	// process the scripts start, and retry leaves a signal ignored at its
	// start ignored (run_signal_reraise). Handled here instead, the
	// signals reach those processes at their default, as from a terminal:
	// exec resets a handled signal.
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM} {
		if signal.Ignored(sig) {
			signal.Notify(make(chan os.Signal, 1), sig)
			t.Cleanup(func() { signal.Reset(sig) })
		}
	}
	mknod := canMknod(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Cmds:                scriptCommands,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Condition: func(cond string) (bool, error) {
			if cond == "race" {
				return raceEnabled, nil
			}
			if cond == "kubecluster" {
				return kubeClusterCondition()
			}
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			if cond == "mknod" { // mkdev works (devices_test.go)
				return mknod, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			// Scripts see no RETRY_* defaults but the ones they set.
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "RETRY_") {
					env.Setenv(k, "")
				}
			}
			env.Setenv("RETRY_STATE_DIR", env.WorkDir+"/.state")
			return setDataPaths(env)
		},
	})
}
