package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Cmds:                scriptCommands,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Condition: func(cond string) (bool, error) {
			if cond == "race" {
				return raceEnabled, nil
			}
			if cond == "root" {
				return os.Geteuid() == 0, nil
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
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			env.Setenv("WAITERS", filepath.Join(wd, "acceptor", "waitermodel", "testdata", "waiter-models"))
			env.Setenv("K8S_OBJECTS", filepath.Join(wd, "acceptor", "k8s", "testdata"))
			return nil
		},
	})
}
