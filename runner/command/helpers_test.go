//go:build linux

package command

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retry-dev/retry/acceptor"
)

// The helpers the tests of this package share: a re-executed test binary
// as the attempt's command, files to synchronise on, processes to watch.

// helperEnv names the helper a re-executed test binary runs.
const helperEnv = "RUNNER_TEST_HELPER"

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		os.Exit(runHelper(name, os.Args[1:]))
	}
	// As the CLI does: leftovers that escape an attempt's group come back
	// to us.
	if err := EnableSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "EnableSubreaper:", err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// runHelper is the main of a helper child.
func runHelper(name string, args []string) int {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	num := func(i int) int { n, _ := strconv.Atoi(arg(i)); return n }
	switch name {
	case "exit": // exit CODE
		return num(0)
	case "trap": // trap DIR: write DIR/ready, exit 3 on a signal, naming it in DIR/got
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		writeFile(filepath.Join(arg(0), "ready"), strconv.Itoa(os.Getpid()))
		sig := <-ch
		writeFile(filepath.Join(arg(0), "got"), sig.String())
		return 3
	case "ignore": // ignore DIR: ignore SIGTERM and SIGINT, write DIR/ready, sleep
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
		writeFile(filepath.Join(arg(0), "ready"), strconv.Itoa(os.Getpid()))
		time.Sleep(time.Hour)
		return 0
	case "sleeper": // sleeper FILE: write the pid to FILE, sleep
		writeFile(arg(0), strconv.Itoa(os.Getpid()))
		time.Sleep(time.Hour)
		return 0
	case "spawn": // spawn DIR K [exit]: start K sleepers (DIR/g1…), write DIR/ready, sleep or exit
		dir, k := arg(0), num(1)
		for i := 1; i <= k; i++ {
			cmd := helperCmd("sleeper", filepath.Join(dir, "g"+strconv.Itoa(i)))
			if err := cmd.Start(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			waitFileQuiet(filepath.Join(dir, "g"+strconv.Itoa(i)))
		}
		writeFile(filepath.Join(dir, "ready"), strconv.Itoa(os.Getpid()))
		if arg(2) == "exit" {
			return 0
		}
		time.Sleep(time.Hour)
		return 0
	case "escape": // escape FILE: start a sleeper in a new session that keeps our stdout and stderr, exit once it runs
		cmd := helperCmd("sleeper", arg(0))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		waitFileQuiet(arg(0))
		return 0
	case "gen": // gen N SEED: N pseudo-random bytes to stdout, "gen done" to stderr
		os.Stdout.Write(genBytes(num(0), uint64(num(1))))
		fmt.Fprint(os.Stderr, "gen done\n")
		return 0
	case "readn": // readn N [CODE]: copy N bytes of stdin (all when N < 0) to stdout
		var b []byte
		if n := num(0); n >= 0 {
			b = make([]byte, n)
			k, _ := io.ReadFull(os.Stdin, b)
			b = b[:k]
		} else {
			b, _ = io.ReadAll(os.Stdin)
		}
		os.Stdout.Write(b)
		return num(1)
	case "env": // env: print RETRY_ATTEMPT/RETRY_MAX_ATTEMPTS
		fmt.Printf("%s/%s\n", os.Getenv("RETRY_ATTEMPT"), os.Getenv("RETRY_MAX_ATTEMPTS"))
		return 0
	case "pgid": // pgid: print "PID PGID"
		fmt.Printf("%d %d\n", os.Getpid(), syscall.Getpgrp())
		return 0
	case "stderr": // stderr TEXT CODE
		fmt.Fprint(os.Stderr, arg(0))
		return num(1)
	}
	fmt.Fprintln(os.Stderr, "unknown helper", name)
	return 2
}

// helperCmd is an exec.Cmd running a helper (used by helpers themselves).
func helperCmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), helperEnv+"="+name, raceNoExitSleep)
	return cmd
}

// helper returns a Command running a helper.
func helper(name string, args ...string) *Command {
	return &Command{
		Argv: append([]string{os.Args[0]}, args...),
		Env:  append(os.Environ(), helperEnv+"="+name, raceNoExitSleep),
	}
}

// raceNoExitSleep spares helper children the race detector's 1s sleep at exit.
const raceNoExitSleep = "GORACE=atexit_sleep_ms=0"

// writeFile writes a file atomically, so waiters never see it half-written.
func writeFile(path, content string) {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err == nil {
		os.Rename(tmp, path)
	}
}

func waitFileQuiet(path string) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
	}
	return false
}

// waitFile waits for path to exist and returns its content.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	if !waitFileQuiet(path) {
		t.Fatalf("%s did not appear", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// proc identifies a process by pid and start time, so that a reused pid is
// not taken for it.
type proc struct {
	pid   int
	start string
}

// procOf reads the pid in file and identifies the process.
func procOf(t *testing.T, file string) proc {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(waitFile(t, file)))
	if err != nil {
		t.Fatal(err)
	}
	state, start := procStat(pid)
	if state == 0 {
		t.Fatalf("process %d of %s is not running", pid, file)
	}
	return proc{pid, start}
}

// procStat returns a process's state and start time; state 0 when there is
// no such process.
func procStat(pid int) (state byte, start string) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, ""
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0][0], f[19]
}

// alive reports whether the process runs (a zombie does not).
func (p proc) alive() bool {
	state, start := procStat(p.pid)
	return state != 0 && state != 'Z' && start == p.start
}

func assertGone(t *testing.T, what string, procs ...proc) {
	t.Helper()
	for _, p := range procs {
		if p.alive() {
			syscall.Kill(p.pid, syscall.SIGKILL)
			t.Errorf("%s: process %d is still running", what, p.pid)
		}
	}
}

func genBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func readAll(t *testing.T, a *acceptor.Attempt) []byte {
	t.Helper()
	rc, err := a.OpenStdout()
	if err != nil {
		t.Fatalf("open stdout: %v", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read stdout: %v", err)
	}
	return b
}
