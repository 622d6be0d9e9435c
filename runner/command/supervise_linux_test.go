package command

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// An attempt's environment carries the run's id after the ids it
// inherited (a retry inside an attempt of another), once marking is on.
func TestChildEnvMarksTheRun(t *testing.T) {
	env := childEnv([]string{"A=1", RunIDVar + "=outer", "RETRY_ATTEMPT=9"}, true)
	want := []string{"A=1", RunIDVar + "=outer " + runID()}
	if !slices.Equal(env, want) {
		t.Fatalf("marked: %q, want %q", env, want)
	}
	env = childEnv([]string{"A=1", RunIDVar + "=outer"}, false)
	if !slices.Equal(env, []string{"A=1", RunIDVar + "=outer"}) {
		t.Fatalf("not marked: %q, want the environment as it is", env)
	}
}

// A process is found by any of the ids in its RunIDVar, by no other, and
// not by an id that is only a part of one.
func TestRunProcessesFindsTheMark(t *testing.T) {
	c := exec.Command("sleep", "7713481")
	c.Env = []string{"PATH=/usr/bin:/bin", RunIDVar + "=outer-1 inner-2", "OTHER=inner-3"}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	pid := c.Process.Pid
	for id, want := range map[string]bool{"outer-1": true, "inner-2": true, "inner-3": false, "inner": false, "outer-1 inner-2": false} {
		if got := slices.Contains(runProcesses(nil, id, nil), pid); got != want {
			t.Errorf("runProcesses(%q) has the process: %v, want %v", id, got, want)
		}
	}
	if !signalChecked(pid, "inner-2", nil, 0) || signalChecked(pid, "none", nil, 0) {
		t.Error("signalChecked: want a signal only to a process of the run")
	}
	if !strings.Contains(runID(), "-") {
		t.Errorf("runID %q: want PID-TIME", runID())
	}
}
