//go:build unix

package main

import (
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["killsupervisor"] = cmdKillSupervisor
	scriptCommands["supervisorreplaced"] = cmdSupervisorReplaced
}

// supervisorOf returns the pid that `supervised NAME` remembered.
func supervisorOf(ts *testscript.TestScript, name string) int {
	m, _ := supervisors.Load(ts)
	pid := 0
	if m != nil {
		pid = m.(map[string]int)[name]
	}
	if pid == 0 {
		ts.Fatalf("no supervisor of %s: run supervised first", name)
	}
	return pid
}

// cmdKillSupervisor is `killsupervisor NAME`: it sends SIGKILL to the
// supervisor that `supervised NAME` found (by that pid: a child of the
// retry the script started).
func cmdKillSupervisor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: killsupervisor NAME")
	}
	ts.Check(syscall.Kill(supervisorOf(ts, args[0]), syscall.SIGKILL))
}

// cmdSupervisorReplaced is `supervisorreplaced NAME`: it waits (at most a
// minute) until the retry started as NAME runs a supervisor other than the
// one `supervised NAME` found, and remembers the new one's pid.
func cmdSupervisorReplaced(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: supervisorreplaced NAME")
	}
	old := supervisorOf(ts, args[0])
	p := bgProcs(ts)[args[0]]
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, kid := range procChildren(p.cmd.Process.Pid) {
			if argv := procArgv(kid); kid != old && len(argv) > 1 && argv[1] == "__retry-supervisor" && processAlive(kid) {
				m, _ := supervisors.Load(ts)
				m.(map[string]int)[args[0]] = kid
				return
			}
		}
	}
	ts.Fatalf("%s started no other supervisor within a minute", args[0])
}
