package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

// The script commands and helper programs that run on every OS: the Unix
// harness (script_test.go) and the Windows one (script_windows_test.go)
// both register them. What needs Unix (signals, /proc, device nodes) stays
// in the unix-tagged files; processAlive is per OS.

// scriptedMain is a helper child driven by files: `scripted DIR` counts its
// runs in DIR/count; on run k it writes DIR/k.out to stdout and DIR/k.err to
// stderr and exits with the number in DIR/k.code (0 when absent). When DIR/k.*
// do not exist for any kind, the highest k that has files is used again. With
// DIR/k.touch present it creates that file's content as a path before
// exiting, and DIR/k.sleep holds a duration to sleep first.
func scriptedMain() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: scripted DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	k := bumpCounter(filepath.Join(dir, "count"))
	last := 0
	for i := 1; i <= k; i++ {
		for _, ext := range []string{"out", "err", "code", "sleep"} {
			if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%d.%s", i, ext))); err == nil {
				last = i
			}
		}
	}
	file := func(ext string) string { return filepath.Join(dir, fmt.Sprintf("%d.%s", last, ext)) }
	if b, err := os.ReadFile(file("sleep")); err == nil {
		d, _ := time.ParseDuration(strings.TrimSpace(string(b)))
		time.Sleep(d)
	}
	if b, err := os.ReadFile(file("out")); err == nil {
		os.Stdout.Write(b)
	}
	if b, err := os.ReadFile(file("err")); err == nil {
		os.Stderr.Write(b)
	}
	code := 0
	if b, err := os.ReadFile(file("code")); err == nil {
		code, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	os.Exit(code)
}

// bumpCounter increments the number in file (0 when absent) and returns it.
func bumpCounter(file string) int {
	b, _ := os.ReadFile(file)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	if err := os.WriteFile(file, []byte(strconv.Itoa(n)+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	return n
}

// spawnMain is `spawn PIDDIR N`: it starts N grandchildren (sleeper), writes
// each pid to PIDDIR/<pid>, writes its own pid to PIDDIR/leader, touches
// PIDDIR/ready, and sleeps until killed.
func spawnMain() {
	dir := os.Args[1]
	n, _ := strconv.Atoi(os.Args[2])
	for range n {
		c := exec.Command("sleeper")
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.WriteFile(filepath.Join(dir, strconv.Itoa(c.Process.Pid)), nil, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "leader"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
	time.Sleep(time.Hour)
}

// sleeperMain sleeps for an hour, or until killed.
func sleeperMain() { time.Sleep(time.Hour) }

// cmdStatus is `status N [-stdin FILE | -stdinfile FILE] PROG ARGS...`: it
// runs PROG and fails unless it exits with status N exactly. Its stdout and
// stderr become the script's. -stdin feeds FILE's content through a pipe;
// -stdinfile gives FILE itself as stdin (as `< FILE` does).
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N [-stdin FILE | -stdinfile FILE] PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	args = args[1:]
	var stdin io.Reader = bytes.NewReader(nil)
	switch args[0] {
	case "-stdin":
		stdin = bytes.NewReader([]byte(ts.ReadFile(args[1])))
		args = args[2:]
	case "-stdinfile":
		f, err := os.Open(ts.MkAbs(args[1]))
		ts.Check(err)
		defer f.Close()
		stdin = f
		args = args[2:]
	}
	c := scriptCommand(ts, args)
	c.Stdin = stdin
	c.Stdout, c.Stderr = ts.Stdout(), ts.Stderr()
	err = c.Run()
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%v", err)
	}
	if want < 0 {
		ts.Logf("%s exited with status %d", args[0], got)
		return
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[0], got, want)
	}
}

func scriptCommand(ts *testscript.TestScript, args []string) *exec.Cmd {
	path, err := exec.LookPath(args[0])
	if err != nil {
		// LookPath uses our PATH; scripts' PATH is in the script env.
		for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
			if p := filepath.Join(dir, args[0]); fileExists(p) {
				path, err = p, nil
				break
			}
		}
	}
	ts.Check(err)
	c := exec.Command(path, args[1:]...)
	c.Dir = ts.Getenv("WORK")
	c.Env = scriptEnv(ts)
	return c
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// scriptEnv rebuilds the script's environment for a command we start.
func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	seen := map[string]bool{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "" { // Windows' per-drive directories: "=C:=C:\\dir"
			continue
		}
		seen[k] = true
		env = append(env, k+"="+ts.Getenv(k))
	}
	// Variables the script set that the test process does not have.
	names := slices.Clone(scriptSetNames(ts))
	if m, ok := cmdSetNames.Load(ts); ok {
		m.(*sync.Map).Range(func(k, _ any) bool {
			names = append(names, k.(string))
			return true
		})
	}
	for _, k := range names {
		if !seen[k] {
			seen[k] = true
			if v := ts.Getenv(k); v != "" {
				env = append(env, k+"="+v)
			}
		}
	}
	return env
}

// background holds the processes of `start`, per script.
var background sync.Map // *testscript.TestScript → map[string]*bgProc

type bgProc struct {
	cmd            *exec.Cmd
	stdout, stderr lockedBuffer
	done           chan struct{}
	err            error
	ended          time.Time // when it ended (set before done is closed)
}

// lockedBuffer is a buffer that a process writes while a script reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

func bgProcs(ts *testscript.TestScript) map[string]*bgProc {
	m, _ := background.LoadOrStore(ts, map[string]*bgProc{})
	return m.(map[string]*bgProc)
}

// startedProc returns the process the script started as name, or fails
// the script.
func startedProc(ts *testscript.TestScript, name string) *bgProc {
	p := bgProcs(ts)[name]
	if p == nil {
		ts.Fatalf("no process %s", name)
	}
	return p
}

// cmdStart is `start NAME PROG ARGS...`: it starts PROG in the background.
// waitexit collects it; the script's end kills it if still running.
func cmdStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: start NAME PROG [ARGS...]")
	}
	startBackground(ts, args[0], scriptCommand(ts, args[1:]))
}

// startBackground starts c as the background process NAME of the script.
func startBackground(ts *testscript.TestScript, name string, c *exec.Cmd) {
	p := &bgProc{cmd: c, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	ts.Check(p.cmd.Start())
	bgProcs(ts)[name] = p
	go func() { p.err = p.cmd.Wait(); p.ended = time.Now(); close(p.done) }()
	ts.Defer(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
		background.Delete(ts)
	})
}

// cmdWaitExit is `waitexit NAME N`: it waits (at most a minute) for the
// process started as NAME and fails unless it exited with status N; its
// output becomes the script's stdout and stderr.
func cmdWaitExit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitexit NAME N|any")
	}
	p := startedProc(ts, args[0])
	// "any" waits for the end and logs the status without asserting it:
	// for another tool's process whose outcome is not ours to promise.
	want, err := -1, error(nil)
	if args[1] != "any" {
		want, err = strconv.Atoi(args[1])
		ts.Check(err)
	}
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		ts.Fatalf("%s still running after a minute", args[0])
	}
	ts.Stdout().Write(p.stdout.Bytes())
	ts.Stderr().Write(p.stderr.Bytes())
	got := 0
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		got = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			got = 128 + int(ws.Signal())
		}
	} else if p.err != nil {
		ts.Fatalf("%v", p.err)
	}
	if want < 0 {
		ts.Logf("%s exited with status %d", args[0], got)
		return
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[0], got, want)
	}
}

// cmdWaitFile is `waitfile FILE...`: it waits (at most a minute) until every
// FILE exists.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: waitfile FILE...")
	}
	deadline := time.Now().Add(time.Minute)
	for _, f := range args {
		for !fileExists(ts.MkAbs(f)) {
			if time.Now().After(deadline) {
				ts.Fatalf("%s did not appear within a minute", f)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// cmdGone is `gone PIDDIR`: every file in PIDDIR named by a number (and the
// pid written in PIDDIR/leader) names a process that must no longer exist.
// Processes get 10 seconds to be reaped.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone PIDDIR")
	}
	dir := ts.MkAbs(args[0])
	entries, err := os.ReadDir(dir)
	ts.Check(err)
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "leader")); err == nil {
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		ts.Check(err)
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		ts.Fatalf("no pids in %s", args[0])
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for processAlive(pid) {
			if time.Now().After(deadline) {
				ts.Fatalf("process %d is still alive", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// cmdCount is `count FILE N`: FILE (a counter written by scripted) must hold N.
func cmdCount(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: count FILE N")
	}
	got := strings.TrimSpace(ts.ReadFile(args[0]))
	if (got == args[1]) == neg {
		ts.Fatalf("%s holds %s, want %s%s", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}

// cmdWaitStderr is `waitstderr NAME REGEXP`: it waits (at most two minutes)
// until the stderr of the process started as NAME matches REGEXP.
func cmdWaitStderr(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitstderr NAME REGEXP")
	}
	p := startedProc(ts, args[0])
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	deadline := time.Now().Add(2 * time.Minute)
	for !re.Match(p.stderr.Bytes()) {
		select {
		case <-p.done:
			if re.Match(p.stderr.Bytes()) {
				return
			}
			ts.Fatalf("%s exited before its stderr matched %q:\n%s", args[0], args[1], p.stderr.Bytes())
		default:
		}
		if time.Now().After(deadline) {
			ts.Fatalf("stderr of %s did not match %q within two minutes", args[0], args[1])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// scriptSetNames are the variables a script sets with env (or envfile) that
// the test process may not have: the commands we start (status, start,
// iostatus, combined) pass them on, as exec does. Found by reading the
// script's env lines, so no list of names is kept by hand; cached per
// script.
func scriptSetNames(ts *testscript.TestScript) []string {
	if v, ok := setNames.Load(ts.Name()); ok {
		return v.([]string)
	}
	// testscript's own variables and the ones Setup adds.
	names := []string{"WORK", "HOME", "TMPDIR", "PATH", "TESTSCRIPT_COMMAND", "WAITERS", "RETRY_STATE_DIR"}
	b, err := os.ReadFile(filepath.Join("testdata", "script", ts.Name()+".txtar"))
	ts.Check(err)
	for _, line := range strings.Split(string(txtar.Parse(b).Comment), "\n") {
		line = strings.TrimSpace(line)
		for strings.HasPrefix(line, "[") { // a condition: [race] env X=1
			_, line, _ = strings.Cut(line, "]")
			line = strings.TrimSpace(line)
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 2 && fields[0] == "env":
			for _, f := range fields[1:] {
				if k, _, ok := strings.Cut(f, "="); ok {
					names = append(names, k)
				}
			}
		case len(fields) == 3 && fields[0] == "envfile":
			names = append(names, fields[1])
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	setNames.Store(ts.Name(), names)
	return names
}

var setNames sync.Map // script name → []string

// scriptSetenv sets a variable for the rest of the script, as env does, for
// custom commands (motoserver's AWS_*, httpserver's NAME_URL, …); the
// commands we start get it too.
func scriptSetenv(ts *testscript.TestScript, k, v string) {
	ts.Setenv(k, v)
	m, _ := cmdSetNames.LoadOrStore(ts, &sync.Map{})
	m.(*sync.Map).Store(k, true)
}

var cmdSetNames sync.Map // *testscript.TestScript → *sync.Map of names

// touchwaitMain is `touchwait CREATE WAITFOR [CODE]`: it creates the file
// CREATE, waits (at most a minute) until WAITFOR exists, and exits with
// CODE (0). It prints RETRY_ATTEMPT on stdout first.
func touchwaitMain() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: touchwait CREATE WAITFOR [CODE]")
		os.Exit(2)
	}
	fmt.Printf("attempt %s\n", os.Getenv("RETRY_ATTEMPT"))
	if err := os.WriteFile(os.Args[1], nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	deadline := time.Now().Add(time.Minute)
	for !fileExists(os.Args[2]) {
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "touchwait: %s did not appear within a minute\n", os.Args[2])
			os.Exit(2)
		}
		time.Sleep(5 * time.Millisecond)
	}
	code := 0
	if len(os.Args) > 3 {
		code, _ = strconv.Atoi(os.Args[3])
	}
	os.Exit(code)
}

// setDataPaths sets the test data paths scripts name: $WAITERS (botocore
// waiter models) and $K8S_OBJECTS (Kubernetes objects).
func setDataPaths(env *testscript.Env) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	env.Setenv("WAITERS", filepath.Join(wd, "acceptor", "waitermodel", "testdata", "waiter-models"))
	env.Setenv("K8S_OBJECTS", filepath.Join(wd, "acceptor", "k8s", "testdata"))
	return nil
}
