//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["supervised"] = cmdSupervised
	scriptCommands["supervisorgone"] = cmdSupervisorGone
	scriptCommands["nomarker"] = cmdNoMarker
	scriptCommands["waitkilled"] = cmdWaitKilled
	scriptCommands["waitnomarker"] = cmdWaitNoMarker
}

// cmdWaitNoMarker is `waitnomarker TEXT`: it waits (at most 30 seconds,
// looking at /proc) until no live process's command line contains TEXT,
// then passes; past that it fails as nomarker does.
func cmdWaitNoMarker(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitnomarker TEXT")
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if len(markedProcesses(args[0])) == 0 {
			return
		}
	}
	cmdNoMarker(ts, false, args)
}

// markedProcesses returns the live processes whose command line contains
// text, as "PID (ARGV)".
func markedProcesses(text string) []string {
	names, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range names {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !processAlive(pid) {
			continue
		}
		if line := strings.Join(procArgv(pid), " "); strings.Contains(line, text) {
			out = append(out, strconv.Itoa(pid)+" ("+line+")")
		}
	}
	return out
}

// cmdWaitKilled is `waitkilled NAME SIG`: it waits (at most a minute) for
// the process started as NAME and fails unless a signal SIG ended it (as
// a shell tells it apart from an exit with status 128+N); its output
// becomes the script's stdout and stderr.
func cmdWaitKilled(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitkilled NAME SIG")
	}
	p := startedProc(ts, args[0])
	want, ok := scriptSignals[args[1]]
	if !ok {
		ts.Fatalf("unknown signal %s", args[1])
	}
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		ts.Fatalf("%s still running after a minute", args[0])
	}
	ts.Stdout().Write(p.stdout.Bytes())
	ts.Stderr().Write(p.stderr.Bytes())
	ws, _ := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled() && ws.Signal() == want:
		if ws.CoreDump() {
			ts.Fatalf("%s dumped core", args[0])
		}
	case ws.Signaled():
		ts.Fatalf("%s was killed by %v, want %v", args[0], ws.Signal(), want)
	default:
		ts.Fatalf("%s exited with status %d, want killed by %v", args[0], ws.ExitStatus(), want)
	}
}

// supervisors holds the supervisor's pid of each process that `supervised`
// waited for, per script.
var supervisors sync.Map // *testscript.TestScript → map[string]int

// cmdSupervised is `supervised NAME`: it waits (at most a minute, looking
// at /proc) until the retry started as NAME has started its supervisor, a
// child whose argv[1] is __retry-supervisor, and remembers its pid for
// supervisorgone.
func cmdSupervised(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: supervised NAME")
	}
	p := startedProc(ts, args[0])
	pid := p.cmd.Process.Pid
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, kid := range procChildren(pid) {
			argv := procArgv(kid)
			if len(argv) > 1 && argv[1] == "__retry-supervisor" {
				m, _ := supervisors.LoadOrStore(ts, map[string]int{})
				m.(map[string]int)[args[0]] = kid
				return
			}
		}
	}
	ts.Fatalf("%s started no supervisor within a minute", args[0])
}

// cmdSupervisorGone is `supervisorgone NAME`: it waits (at most a minute)
// until the supervisor that `supervised NAME` found has exited.
func cmdSupervisorGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: supervisorgone NAME")
	}
	m, _ := supervisors.Load(ts)
	pid := 0
	if m != nil {
		pid = m.(map[string]int)[args[0]]
	}
	if pid == 0 {
		ts.Fatalf("no supervisor of %s: run supervised first", args[0])
	}
	for deadline := time.Now().Add(time.Minute); processAlive(pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			ts.Fatalf("the supervisor %d of %s still runs after a minute", pid, args[0])
		}
	}
}

// cmdNoMarker is `nomarker TEXT`: no live process's command line (its argv
// joined by spaces) contains TEXT. Those that do are named, killed, and
// fail the script.
func cmdNoMarker(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: nomarker TEXT")
	}
	names, err := os.ReadDir("/proc")
	ts.Check(err)
	var left []string
	for _, e := range names {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !processAlive(pid) {
			continue
		}
		line := strings.Join(procArgv(pid), " ")
		if strings.Contains(line, args[0]) {
			left = append(left, strconv.Itoa(pid)+" ("+line+")")
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if len(left) > 0 {
		ts.Fatalf("left running: %s", strings.Join(left, ", "))
	}
}

// procChildren returns the children of pid, from every thread's list.
func procChildren(pid int) []int {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if kid, err := strconv.Atoi(s); err == nil {
				out = append(out, kid)
			}
		}
	}
	return out
}

// procArgv returns the argv of pid; nil when it is gone or a zombie.
func procArgv(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}
