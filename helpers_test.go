//go:build unix

package main

import (
	"bufio"
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
)

func init() {
	scriptPrograms["scripted"] = scriptedMain
	scriptPrograms["spawn"] = spawnMain
	scriptPrograms["sleeper"] = sleeperMain
	scriptPrograms["catn"] = catnMain
	scriptPrograms["genbytes"] = genbytesMain
	scriptPrograms["geninstances"] = geninstancesMain
	scriptCommands["status"] = cmdStatus
	scriptCommands["start"] = cmdStart
	scriptCommands["signal"] = cmdSignal
	scriptCommands["waitexit"] = cmdWaitExit
	scriptCommands["waitfile"] = cmdWaitFile
	scriptCommands["gone"] = cmdGone
	scriptCommands["count"] = cmdCount
	scriptCommands["waitstderr"] = cmdWaitStderr
}

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

// catnMain is `catn N`: it copies at most N bytes of stdin to stdout.
func catnMain() {
	n, _ := strconv.ParseInt(os.Args[1], 10, 64)
	b := make([]byte, n)
	m, _ := ioReadFull(os.Stdin, b)
	os.Stdout.Write(b[:m])
}

func ioReadFull(f *os.File, b []byte) (int, error) {
	got := 0
	for got < len(b) {
		n, err := f.Read(b[got:])
		got += n
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

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

// cmdStart is `start NAME PROG ARGS...`: it starts PROG in the background.
// waitexit collects it; the script's end kills it if still running.
func cmdStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: start NAME PROG [ARGS...]")
	}
	p := &bgProc{cmd: scriptCommand(ts, args[1:]), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	ts.Check(p.cmd.Start())
	bgProcs(ts)[args[0]] = p
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

// cmdSignal is `signal NAME SIG`: it sends SIG (TERM, INT, HUP, …) to the
// process started as NAME.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: signal NAME SIG")
	}
	p := bgProcs(ts)[args[0]]
	if p == nil {
		ts.Fatalf("no process %s", args[0])
	}
	sigs := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP, "KILL": syscall.SIGKILL, "USR1": syscall.SIGUSR1, "STOP": syscall.SIGSTOP, "CONT": syscall.SIGCONT}
	sig, ok := sigs[args[1]]
	if !ok {
		ts.Fatalf("unknown signal %s", args[1])
	}
	ts.Check(p.cmd.Process.Signal(sig))
}

// cmdWaitExit is `waitexit NAME N`: it waits (at most a minute) for the
// process started as NAME and fails unless it exited with status N; its
// output becomes the script's stdout and stderr.
func cmdWaitExit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitexit NAME N|any")
	}
	p := bgProcs(ts)[args[0]]
	if p == nil {
		ts.Fatalf("no process %s", args[0])
	}
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

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
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

// genbytesMain is `genbytes N FILE`: it writes N deterministic pseudo-random
// bytes (all 256 values, no trailing newline) to FILE.
func genbytesMain() {
	n, _ := strconv.Atoi(os.Args[1])
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	if err := os.WriteFile(os.Args[2], b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// geninstancesMain is `geninstances N FILE`: it writes to FILE a
// describe-instances-like JSON document of N reservations of 5 instances
// each (about 1 KB an instance), every instance "running" but the last,
// which is "stopped".
func geninstancesMain() {
	n, _ := strconv.Atoi(os.Args[1])
	f, err := os.Create(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(`{"Reservations": [`)
	for r := range n {
		if r > 0 {
			w.WriteString(", ")
		}
		fmt.Fprintf(w, `{"Groups": [], "OwnerId": "123456789012", "ReservationId": "r-%017x", "Instances": [`, r)
		for i := range 5 {
			k := r*5 + i
			state := "running"
			if k == n*5-1 {
				state = "stopped"
			}
			if i > 0 {
				w.WriteString(", ")
			}
			fmt.Fprintf(w, `{"AmiLaunchIndex": %d, "ImageId": "ami-%08x", "InstanceId": "i-%017x", "InstanceType": "m5.large", `+
				`"LaunchTime": "2026-11-0%dT12:00:00+00:00", "Monitoring": {"State": "disabled"}, `+
				`"Placement": {"AvailabilityZone": "us-east-1%c", "GroupName": "", "Tenancy": "default"}, `+
				`"PrivateDnsName": "ip-10-0-%d-%d.ec2.internal", "PrivateIpAddress": "10.0.%d.%d", "ProductCodes": [], `+
				`"PublicDnsName": "", "State": {"Code": 16, "Name": "%s"}, "StateTransitionReason": "", `+
				`"SubnetId": "subnet-%08x", "VpcId": "vpc-0abc1234", "Architecture": "x86_64", "ClientToken": "", `+
				`"EbsOptimized": false, "EnaSupport": true, "Hypervisor": "xen", "RootDeviceName": "/dev/xvda", `+
				`"RootDeviceType": "ebs", "SecurityGroups": [{"GroupName": "default", "GroupId": "sg-0123456789"}], `+
				`"Tags": [{"Key": "Name", "Value": "web-%d"}, {"Key": "team", "Value": "platform"}], `+
				`"VirtualizationType": "hvm", "CpuOptions": {"CoreCount": 1, "ThreadsPerCore": 2}}`,
				i, uint32(k)*2654435761, k, 1+k%9, "abc"[k%3], k/256%256, k%256, k/256%256, k%256, state, k%50, k)
		}
		w.WriteString(`]}`)
	}
	w.WriteString("]}\n")
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// cmdWaitStderr is `waitstderr NAME REGEXP`: it waits (at most two minutes)
// until the stderr of the process started as NAME matches REGEXP.
func cmdWaitStderr(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitstderr NAME REGEXP")
	}
	p := bgProcs(ts)[args[0]]
	if p == nil {
		ts.Fatalf("no process %s", args[0])
	}
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
