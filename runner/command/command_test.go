//go:build linux

package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

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

func sh(script string) *Command { return &Command{Argv: []string{"/bin/sh", "-c", script}} }

func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	writeFile(filepath.Join(dir, "notexec"), "#!/bin/sh\necho hi\n")
	os.WriteFile(filepath.Join(dir, "badinterp"), []byte("#!/no/such/interpreter\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "garbage"), []byte("\x7fELF\x00\x01\x02 not really"), 0o755)
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	tests := []struct {
		name       string
		cmd        *Command
		code       int
		notStarted bool
		msg        string // the start error, when notStarted
	}{
		{name: "zero", cmd: sh("exit 0"), code: 0},
		{name: "code", cmd: sh("exit 3"), code: 3},
		{name: "255", cmd: sh("exit 255"), code: 255},
		{name: "SIGTERM", cmd: sh("kill -TERM $$"), code: 128 + 15},
		{name: "SIGKILL", cmd: sh("kill -KILL $$"), code: 128 + 9},
		{name: "SIGSEGV", cmd: sh("kill -SEGV $$"), code: 128 + 11},
		{name: "not found", cmd: &Command{Argv: []string{"no-such-command-xyz"}}, code: 127, notStarted: true,
			msg: "no-such-command-xyz: command not found"},
		{name: "empty name", cmd: &Command{Argv: []string{""}}, code: 127, notStarted: true, msg: ": command not found"},
		{name: "missing path", cmd: &Command{Argv: []string{filepath.Join(dir, "missing")}}, code: 127, notStarted: true,
			msg: filepath.Join(dir, "missing") + ": no such file or directory"},
		{name: "not executable", cmd: &Command{Argv: []string{filepath.Join(dir, "notexec")}}, code: 126, notStarted: true,
			msg: filepath.Join(dir, "notexec") + ": permission denied"},
		{name: "directory", cmd: &Command{Argv: []string{filepath.Join(dir, "adir")}}, code: 126, notStarted: true,
			msg: filepath.Join(dir, "adir") + ": is a directory"},
		{name: "relative to Dir", cmd: &Command{Argv: []string{"./adir"}, Dir: dir}, code: 126, notStarted: true,
			msg: "./adir: is a directory"},
		{name: "bad interpreter", cmd: &Command{Argv: []string{filepath.Join(dir, "badinterp")}}, code: 127, notStarted: true,
			msg: filepath.Join(dir, "badinterp") + ": /no/such/interpreter: bad interpreter: no such file or directory"},
		{name: "exec format", cmd: &Command{Argv: []string{filepath.Join(dir, "garbage")}}, code: 126, notStarted: true,
			msg: filepath.Join(dir, "garbage") + ": exec format error"},
		{name: "in PATH but not executable", cmd: &Command{Argv: []string{"notexec"}, Env: []string{"PATH=/nonexistent:" + dir}},
			code: 126, notStarted: true, msg: "notexec: permission denied"},
		{name: "missing Dir", cmd: &Command{Argv: []string{"/bin/true"}, Dir: filepath.Join(dir, "nodir")}, code: 126, notStarted: true,
			msg: "/bin/true: cannot change directory to " + filepath.Join(dir, "nodir") + ": no such file or directory"},
		{name: "empty argv", cmd: &Command{}, code: 127, notStarted: true, msg: ": command not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer tt.cmd.Close()
			r := tt.cmd.Attempt(t.Context(), 1, 1)
			if r.ExitCode != tt.code || r.NotStarted != tt.notStarted || r.Failed != (tt.code != 0) || r.Stopped != nil {
				t.Fatalf("ExitCode %d NotStarted %v Failed %v Stopped %v (err %v); want %d %v %v <nil>",
					r.ExitCode, r.NotStarted, r.Failed, r.Stopped, r.Err, tt.code, tt.notStarted, tt.code != 0)
			}
			if !tt.notStarted {
				if r.Err != nil {
					t.Fatalf("Err = %v", r.Err)
				}
				return
			}
			var se *StartError
			if !errors.As(r.Err, &se) || se.Code != tt.code {
				t.Fatalf("Err = %#v, want a *StartError with Code %d", r.Err, tt.code)
			}
			if r.Err.Error() != tt.msg {
				t.Errorf("Err = %q, want %q", r.Err, tt.msg)
			}
		})
	}
}

// A command attempt says so: it has an exit status when it ran or could not
// start, none when a done context skipped it.
func TestCommandAttemptKind(t *testing.T) {
	ran := sh("exit 3")
	defer ran.Close()
	r := ran.Attempt(t.Context(), 1, 1)
	if r.Kind != acceptor.CommandAttempt || !r.HasExitCode() || r.ExitCode != 3 || r.Skipped {
		t.Fatalf("ran: kind %v, has exit code %v, exit %d, skipped %v", r.Kind, r.HasExitCode(), r.ExitCode, r.Skipped)
	}
	missing := &Command{Argv: []string{"no-such-command-xyz"}}
	defer missing.Close()
	r = missing.Attempt(t.Context(), 1, 1)
	if r.Kind != acceptor.CommandAttempt || !r.HasExitCode() || r.ExitCode != 127 {
		t.Fatalf("not found: kind %v, has exit code %v, exit %d", r.Kind, r.HasExitCode(), r.ExitCode)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(runner.ErrDeadline)
	skipped := sh("exit 0")
	defer skipped.Close()
	r = skipped.Attempt(ctx, 1, 1)
	if r.Kind != acceptor.CommandAttempt || r.HasExitCode() || !r.Skipped || r.Stopped != runner.ErrDeadline {
		t.Fatalf("done context: kind %v, has exit code %v, skipped %v, stopped %v", r.Kind, r.HasExitCode(), r.Skipped, r.Stopped)
	}
}

// A command that cannot run fails at once: the run loop with the fallbacks
// of retry run makes one attempt of the five it may make, sleeps for no
// retry, and ends in failure with the status a shell gives (127 not found,
// 126 not executable) — whether the source could not start it or a shell
// (--shell) reported it.
func TestCannotRunFailsAtOnce(t *testing.T) {
	dir := t.TempDir()
	writeFile(filepath.Join(dir, "notexec"), "#!/bin/sh\necho hi\n")
	for _, tt := range []struct {
		name       string
		cmd        *Command
		code       int
		notStarted bool
	}{
		{"not found", &Command{Argv: []string{"no-such-command-xyz"}}, 127, true},
		{"missing path", &Command{Argv: []string{filepath.Join(dir, "missing")}}, 127, true},
		{"not found by the shell", sh("no-such-command-xyz"), 127, false},
		{"not executable", &Command{Argv: []string{filepath.Join(dir, "notexec")}}, 126, true},
		{"not executable by the shell", sh(filepath.Join(dir, "notexec")), 126, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer tt.cmd.Close()
			s := &runner.Strategy{MaxAttempts: 5, Chain: &acceptor.Chain{Fallback: acceptor.RunFallback},
				Backoff: backoff.Func(func(backoff.Step, backoff.Rand) time.Duration { return 0 }),
				Sleep: func(_ context.Context, d time.Duration) error {
					t.Errorf("slept %v before a retry", d)
					return nil
				}}
			out := s.Run(t.Context(), tt.cmd)
			if out.End != runner.EndFailure || len(out.Attempts) != 1 {
				t.Fatalf("End %v after %d attempts, want %v after 1", out.End, len(out.Attempts), runner.EndFailure)
			}
			last := out.Last()
			if a := last.Result.Attempt; a.ExitCode != tt.code || a.NotStarted != tt.notStarted || last.Decision.Directive != acceptor.Fail || last.Retried {
				t.Errorf("exit %d, not started %v, directive %v, retried %v; want %d, %v, %v, false",
					a.ExitCode, a.NotStarted, last.Decision.Directive, last.Retried, tt.code, tt.notStarted, acceptor.Fail)
			}
		})
	}
}

func TestNotFoundIsErrCommandNotFound(t *testing.T) {
	c := &Command{Argv: []string{"no-such-command-xyz"}}
	defer c.Close()
	if r := c.Attempt(t.Context(), 1, 1); !errors.Is(r.Err, ErrCommandNotFound) {
		t.Fatalf("Err = %v, want ErrCommandNotFound", r.Err)
	}
}

func TestPathLookupEachAttempt(t *testing.T) {
	// The command appears in PATH between attempts: found at the second.
	dir := t.TempDir()
	c := &Command{Argv: []string{"later-cmd"}, Env: []string{"PATH=" + dir}}
	defer c.Close()
	if r := c.Attempt(t.Context(), 1, 2); r.ExitCode != 127 {
		t.Fatalf("attempt 1: ExitCode %d, want 127", r.ExitCode)
	}
	os.WriteFile(filepath.Join(dir, "later-cmd"), []byte("#!/bin/sh\nexit 7\n"), 0o755)
	if r := c.Attempt(t.Context(), 2, 2); r.ExitCode != 7 {
		t.Fatalf("attempt 2: ExitCode %d (%v), want 7", r.ExitCode, r.Err)
	}
}

func TestAttemptEnv(t *testing.T) {
	c := helper("env")
	c.Env = append(c.Env, "RETRY_ATTEMPT=99", "RETRY_MAX_ATTEMPTS=99")
	defer c.Close()
	for _, tt := range []struct{ n, max int }{{1, 3}, {2, 3}, {7, 0}} {
		r := c.Attempt(t.Context(), tt.n, tt.max)
		want := fmt.Sprintf("%d/%d\n", tt.n, tt.max)
		if got := string(readAll(t, r.Attempt)); got != want {
			t.Errorf("attempt %d of %d: child saw %q, want %q", tt.n, tt.max, got, want)
		}
		r.Release()
	}
}

func TestProcessGroup(t *testing.T) {
	for _, fg := range []bool{false, true} {
		c := helper("pgid")
		c.Foreground = fg
		r := c.Attempt(t.Context(), 1, 1)
		var pid, pgid int
		fmt.Sscan(string(readAll(t, r.Attempt)), &pid, &pgid)
		want := pid
		if fg {
			want = syscall.Getpgrp()
		}
		if pgid != want || pid == 0 {
			t.Errorf("Foreground %v: child pid %d in group %d, want group %d", fg, pid, pgid, want)
		}
		c.Close()
	}
}

func TestTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	c := helper("spawn", dir, "3")
	c.KillAfter = 10 * time.Second // sleepers die of SIGTERM: no wait for SIGKILL
	defer c.Close()
	ctx, cancel := context.WithCancelCause(t.Context())
	done := make(chan *runner.Result)
	go func() { done <- c.Attempt(ctx, 1, 1) }()
	leader := procOf(t, filepath.Join(dir, "ready"))
	gs := []proc{procOf(t, filepath.Join(dir, "g1")), procOf(t, filepath.Join(dir, "g2")), procOf(t, filepath.Join(dir, "g3"))}
	start := time.Now()
	cancel(runner.ErrAttemptTimeout)
	r := <-done
	if !errors.Is(r.Stopped, runner.ErrAttemptTimeout) {
		t.Errorf("Stopped = %v, want runner.ErrAttemptTimeout", r.Stopped)
	}
	if r.ExitCode != 128+15 || !r.Failed {
		t.Errorf("ExitCode %d Failed %v, want 143 true", r.ExitCode, r.Failed)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping took %v: SIGTERM was not enough?", d)
	}
	assertGone(t, "leader", leader)
	assertGone(t, "grandchildren", gs...)
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	dir := t.TempDir()
	c := helper("ignore", dir)
	c.KillAfter = 50 * time.Millisecond
	defer c.Close()
	ctx, cancel := context.WithCancelCause(t.Context())
	done := make(chan *runner.Result)
	go func() { done <- c.Attempt(ctx, 1, 1) }()
	leader := procOf(t, filepath.Join(dir, "ready"))
	start := time.Now()
	cancel(runner.ErrDeadline)
	r := <-done
	if d := time.Since(start); d < c.KillAfter {
		t.Errorf("SIGKILL after %v, before the grace of %v", d, c.KillAfter)
	}
	if r.ExitCode != 128+9 || !errors.Is(r.Stopped, runner.ErrDeadline) {
		t.Errorf("ExitCode %d Stopped %v, want 137 runner.ErrDeadline", r.ExitCode, r.Stopped)
	}
	assertGone(t, "leader", leader)
}

func TestStopNegativeKillAfterKillsAtOnce(t *testing.T) {
	dir := t.TempDir()
	c := helper("trap", dir)
	c.KillAfter = -1
	defer c.Close()
	ctx, cancel := context.WithCancelCause(t.Context())
	done := make(chan *runner.Result)
	go func() { done <- c.Attempt(ctx, 1, 1) }()
	waitFile(t, filepath.Join(dir, "ready"))
	cancel(runner.ErrAttemptTimeout)
	r := <-done
	if r.ExitCode != 128+9 {
		t.Errorf("ExitCode %d, want 137", r.ExitCode)
	}
	if _, err := os.Stat(filepath.Join(dir, "got")); err == nil {
		t.Errorf("the child saw a signal before SIGKILL")
	}
}

func TestInterruptForwardsSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		for _, fg := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/foreground=%v", sig, fg), func(t *testing.T) {
				dir := t.TempDir()
				c := helper("trap", dir)
				c.Foreground = fg
				defer c.Close()
				ctx, cancel := context.WithCancelCause(t.Context())
				done := make(chan *runner.Result)
				go func() { done <- c.Attempt(ctx, 1, 1) }()
				waitFile(t, filepath.Join(dir, "ready"))
				intr := &runner.Interrupt{Signal: sig}
				cancel(intr)
				r := <-done
				if got := waitFile(t, filepath.Join(dir, "got")); got != sig.String() {
					t.Errorf("child got %q, want %q", got, sig.String())
				}
				if r.ExitCode != 3 || r.Stopped != intr {
					t.Errorf("ExitCode %d Stopped %v, want 3 %v", r.ExitCode, r.Stopped, intr)
				}
			})
		}
	}
}

func TestContextDoneBeforeStart(t *testing.T) {
	dir := t.TempDir()
	c := sh("touch " + filepath.Join(dir, "ran"))
	defer c.Close()
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(runner.ErrDeadline)
	r := c.Attempt(ctx, 1, 1)
	if !errors.Is(r.Stopped, runner.ErrDeadline) || !r.Failed {
		t.Errorf("Stopped %v Failed %v, want runner.ErrDeadline true", r.Stopped, r.Failed)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Errorf("the command ran")
	}
}

func TestLeftoversKilledAfterLeaderExits(t *testing.T) {
	dir := t.TempDir()
	c := helper("spawn", dir, "2", "exit")
	c.KillAfter = 10 * time.Second
	defer c.Close()
	start := time.Now()
	r := c.Attempt(t.Context(), 1, 1)
	if r.ExitCode != 0 || r.Stopped != nil {
		t.Fatalf("ExitCode %d Stopped %v, want 0 <nil>", r.ExitCode, r.Stopped)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	// The pid files were written before the leader exited; the processes
	// must be gone now.
	var gs []proc
	for _, g := range []string{"g1", "g2"} {
		pid, _ := strconv.Atoi(waitFile(t, filepath.Join(dir, g)))
		gs = append(gs, proc{pid: pid})
	}
	for _, g := range gs {
		if state, _ := procStat(g.pid); state != 0 && state != 'Z' {
			t.Errorf("leftover %d still running (state %c)", g.pid, state)
			syscall.Kill(g.pid, syscall.SIGKILL)
		}
	}
}

func TestLeftoverIgnoringSIGTERMIsKilled(t *testing.T) {
	dir := t.TempDir()
	// The leader starts a helper that ignores SIGTERM in the background and
	// exits once it is ready.
	c := &Command{
		Argv: []string{"/bin/sh", "-c", `"$0" "$1" & while [ ! -e "$1/ready" ]; do sleep 0.001; done`, os.Args[0], dir},
		Env:  helper("ignore").Env,
	}
	c.KillAfter = 50 * time.Millisecond
	defer c.Close()
	start := time.Now()
	r := c.Attempt(t.Context(), 1, 1)
	d := time.Since(start)
	if r.ExitCode != 0 {
		t.Fatalf("ExitCode %d", r.ExitCode)
	}
	pid, _ := strconv.Atoi(waitFile(t, filepath.Join(dir, "ready")))
	if state, _ := procStat(pid); state != 0 && state != 'Z' {
		t.Errorf("leftover %d still running (state %c)", pid, state)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if d < c.KillAfter {
		t.Errorf("returned after %v: the leftover was not given its grace", d)
	}
}

func TestEscapedProcessKilledBySubreaper(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "escaped")
	c := helper("escape", file)
	c.KillAfter = 10 * time.Second
	defer c.Close()
	start := time.Now()
	r := c.Attempt(t.Context(), 1, 1)
	if r.ExitCode != 0 {
		t.Fatalf("ExitCode %d", r.ExitCode)
	}
	pid, _ := strconv.Atoi(waitFile(t, file))
	if state, _ := procStat(pid); state != 0 {
		// A subreaper reaps it too: not even a zombie is left.
		t.Errorf("escaped process %d is still there (state %c)", pid, state)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestEscapedProcessDoesNotHangWithoutSubreaper(t *testing.T) {
	if err := setSubreaper(false); err != nil {
		t.Skip(err)
	}
	defer setSubreaper(true)
	dir := t.TempDir()
	file := filepath.Join(dir, "escaped")
	c := helper("escape", file)
	defer c.Close()
	start := time.Now()
	r := c.Attempt(t.Context(), 1, 1)
	d := time.Since(start)
	pid, _ := strconv.Atoi(waitFile(t, file))
	syscall.Kill(-pid, syscall.SIGKILL) // it leads its own group
	if r.ExitCode != 0 {
		t.Fatalf("ExitCode %d", r.ExitCode)
	}
	// It holds stdout and stderr open: the attempt waits only pipeDrain.
	if d > pipeDrain+3*time.Second {
		t.Errorf("took %v with an escaped process holding the pipes", d)
	}
}

func setSubreaper(on bool) error {
	var v uintptr
	if on {
		v = 1
	}
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, v, 0, 0, 0)
}

func TestFinalStdoutSpillsByteExact(t *testing.T) {
	for _, threshold := range []int64{64 << 10, 0} { // 0: output.DefaultSpillThreshold
		t.Run(strconv.FormatInt(threshold, 10), func(t *testing.T) { testFinalStdoutSpills(t, threshold) })
	}
}

func testFinalStdoutSpills(t *testing.T, threshold int64) {
	const size = 3<<20 + 12345
	c := helper("gen", strconv.Itoa(size), "42")
	c.SpillThreshold = threshold
	c.Window = 1000
	c.TempDir = t.TempDir()
	defer c.Close()
	r := c.Attempt(t.Context(), 1, 1)
	if r.ExitCode != 0 {
		t.Fatalf("ExitCode %d: %s", r.ExitCode, r.StderrTail)
	}
	want := genBytes(size, 42)
	for range 2 { // readable more than once
		if got := readAll(t, r.Attempt); !bytes.Equal(got, want) {
			t.Fatalf("stdout: %d bytes, want %d, equal %v", len(got), len(want), bytes.Equal(got, want))
		}
	}
	if !bytes.Equal(r.StdoutTail, want[size-1000:]) {
		t.Errorf("StdoutTail is not the last 1000 bytes")
	}
	if string(r.StderrTail) != "gen done\n" {
		t.Errorf("StderrTail = %q", r.StderrTail)
	}
	// The spill file is unlinked at once: nothing in TempDir.
	if ents, _ := os.ReadDir(c.TempDir); len(ents) != 0 {
		t.Errorf("TempDir holds %d files", len(ents))
	}
	r.Release()
	if _, err := r.OpenStdout(); !errors.Is(err, output.ErrCaptureClosed) {
		t.Errorf("Open after Release: %v, want output.ErrCaptureClosed", err)
	}
}

func TestLiveStdout(t *testing.T) {
	const size = 5000
	want := genBytes(size, 7)
	for _, tt := range []struct {
		name   string
		window int
		keep   bool
		open   error
	}{
		{"fits the window", size, false, nil},
		{"larger than the window", 100, false, ErrStdoutNotKept},
		{"kept", 100, true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var live, errs bytes.Buffer
			c := helper("gen", strconv.Itoa(size), "7")
			c.Stdout, c.Stderr, c.Window, c.KeepStdout = &live, &errs, tt.window, tt.keep
			defer c.Close()
			r := c.Attempt(t.Context(), 1, 1)
			if !bytes.Equal(live.Bytes(), want) || errs.String() != "gen done\n" {
				t.Fatalf("live stdout %d bytes (equal %v), stderr %q", live.Len(), bytes.Equal(live.Bytes(), want), errs.String())
			}
			if !bytes.Equal(r.StdoutTail, want[size-tt.window:]) {
				t.Errorf("StdoutTail is not the last %d bytes", tt.window)
			}
			rc, err := r.OpenStdout()
			if !errors.Is(err, tt.open) {
				t.Fatalf("OpenStdout: %v, want %v", err, tt.open)
			}
			if err == nil {
				got, _ := io.ReadAll(rc)
				if !bytes.Equal(got, want) {
					t.Errorf("opened stdout: %d bytes, not the output", len(got))
				}
			}
			if r.Release != nil {
				r.Release()
			}
		})
	}
}

// failingWriter fails every write, like a closed pipe.
type failingWriter struct{ calls int }

func (w *failingWriter) Write(p []byte) (int, error) { w.calls++; return 0, syscall.EPIPE }

// A write error on the live stream (retry's stdout is a closed pipe) stops
// the attempt as a signal would: one write, then SIGTERM to the group, and
// Stopped says which stream broke.
func TestLiveWriteErrorStopsAttempt(t *testing.T) {
	w := &failingWriter{}
	c := helper("gen", strconv.Itoa(1<<20), "3")
	c.Stdout, c.KeepStdout = w, true
	defer c.Close()
	r := c.Attempt(t.Context(), 1, 1)
	var se *output.StreamError
	if !errors.As(r.Stopped, &se) || se.Stream != "stdout" || !se.BrokenPipe() || w.calls != 1 {
		t.Fatalf("Stopped %v, %d writes; want a broken pipe on stdout, 1 write", r.Stopped, w.calls)
	}
	if r.Release != nil {
		r.Release()
	}
}

func TestErrorCodeFromStderr(t *testing.T) {
	aws := "\nAn error occurred (ThrottlingException) when calling the DescribeStacks operation: Rate exceeded\n"
	tests := []struct {
		name    string
		text    string
		code    int
		pattern string
		want    string
	}{
		{"aws failed", aws, 255, "", "ThrottlingException"},
		{"aws but exit 0", aws, 0, "", ""},
		{"pattern first", aws + "E42 boom\n", 1, `^(E\d+) `, "E42"},
		{"pattern misses: built-ins", aws, 1, `^(E\d+) `, "ThrottlingException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs bytes.Buffer
			c := helper("stderr", tt.text, strconv.Itoa(tt.code))
			c.Stderr = &errs
			if tt.pattern != "" {
				c.ErrorPattern = regexp.MustCompile(tt.pattern)
			}
			defer c.Close()
			r := c.Attempt(t.Context(), 1, 1)
			if r.ErrorCode != tt.want {
				t.Errorf("ErrorCode = %q, want %q", r.ErrorCode, tt.want)
			}
			if errs.String() != tt.text || string(r.StderrTail) != tt.text {
				t.Errorf("stderr live %q, tail %q; want %q", errs.String(), r.StderrTail, tt.text)
			}
		})
	}
}

func TestParseErrorInjected(t *testing.T) {
	c := helper("stderr", "whatever", "1")
	c.ParseError = func(stderr []byte) (string, string) { return "Custom", string(stderr) }
	defer c.Close()
	r := c.Attempt(t.Context(), 1, 1)
	if r.ErrorCode != "Custom" || r.ErrorMessage != "whatever" {
		t.Errorf("ErrorCode %q ErrorMessage %q", r.ErrorCode, r.ErrorMessage)
	}
}

func TestAttemptAfterClose(t *testing.T) {
	c := sh("exit 0")
	c.Close()
	if r := c.Attempt(t.Context(), 1, 1); !r.NotStarted || r.Err == nil {
		t.Errorf("NotStarted %v Err %v after Close", r.NotStarted, r.Err)
	}
}

func TestStdinDevNullPassedThrough(t *testing.T) {
	// /dev/null is given to every attempt as is: nothing to record, and
	// each attempt reads EOF at once.
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	c := helper("readn", "-1", "0")
	c.Stdin = null
	defer c.Close()
	for n := 1; n <= 2; n++ {
		r := c.Attempt(t.Context(), n, 2)
		if got := readAll(t, r.Attempt); len(got) != 0 || r.ExitCode != 0 {
			t.Fatalf("attempt %d read %q, exit %d", n, got, r.ExitCode)
		}
		r.Release()
	}
	if st := c.state.stdin; st.mode != stdinNull || st.rec != nil || st.file != null || st.null {
		t.Errorf("stdin source: mode %d, recorder %v, given file %v, closed by Close %v; want mode %d and the given /dev/null, kept open", st.mode, st.rec != nil, st.file == null, st.null, stdinNull)
	}
}

func TestAwaitLeaderStartsPumpsOnlyForOutput(t *testing.T) {
	// A pump's goroutine starts when its pipe has something to read, or
	// when the pipe is still open once the leader exited; a pipe at EOF
	// with nothing read leaves its pump idle.
	tests := []struct {
		name           string
		script         string
		stdout, stderr bool // started
	}{
		{"silent", "exit 3", false, false},
		{"stderr only", "echo oops >&2; exit 1", false, true},
		{"stdout closed early, stderr later", "exec >&-; sleep 0.05; echo late >&2", false, true},
		{"leftover holds stdout", "exec 2>/dev/null; sleep 5 & exit 0", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errs [2]int
			if err := pipeCloexec(&out); err != nil {
				t.Fatal(err)
			}
			if err := pipeCloexec(&errs); err != nil {
				t.Fatal(err)
			}
			null, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			defer null.Close()
			pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", tt.script}, &syscall.ProcAttr{
				Files: []uintptr{null.Fd(), uintptr(out[1]), uintptr(errs[1])},
				Sys:   &syscall.SysProcAttr{Setpgid: true},
			})
			syscall.Close(out[1])
			syscall.Close(errs[1])
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Kill(-pid, syscall.SIGKILL)
			var outBuf, errBuf []byte
			stdout := &pump{fd: out[0], buf: &outBuf, window: 64, done: make(chan struct{})}
			stderr := &pump{fd: errs[0], buf: &errBuf, window: 64, done: make(chan struct{})}
			awaitLeader(pid, leaderWatch{}, stdout, stderr)
			if _, err := waitLeader(pid, func() {}); err != nil {
				t.Fatal(err)
			}
			syscall.Kill(-pid, syscall.SIGKILL)
			for _, p := range []*pump{stdout, stderr} {
				if p.idle() {
					t.Errorf("a pump is left neither started nor at EOF")
				}
				p.finish(time.Second)
				p.close()
			}
			if stdout.started != tt.stdout || stderr.started != tt.stderr {
				t.Errorf("started: stdout %v, stderr %v; want %v, %v", stdout.started, stderr.started, tt.stdout, tt.stderr)
			}
			if (len(outBuf) > 0) != tt.stdout || (len(errBuf) > 0) != tt.stderr {
				t.Errorf("buffers made: stdout %v, stderr %v; want them for started pumps only", len(outBuf) > 0, len(errBuf) > 0)
			}
			if tt.stderr && !strings.HasSuffix(string(stderr.tailBytes()), "\n") {
				t.Errorf("stderr %q: not read to its end", stderr.tailBytes())
			}
		})
	}
}

// BenchmarkAttemptTrue is the overhead of one attempt of /bin/true.
// BenchmarkExecTrue is os/exec's Run of the same, for comparison, and
// BenchmarkExecTrueGroup os/exec set up as an attempt would need it: its own
// process group, Cancel sending SIGTERM to the group, WaitDelay, the
// death signal and the stdout and stderr pipes.
func BenchmarkAttemptTrue(b *testing.B) {
	c := &Command{Argv: []string{"/bin/true"}}
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r := c.Attempt(ctx, 1, 1)
		if r.ExitCode != 0 {
			b.Fatal(r.ExitCode, r.Err)
		}
		r.Release()
	}
}

func BenchmarkExecTrue(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecTrueGroup(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		cmd := exec.CommandContext(ctx, "/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
		cmd.WaitDelay = DefaultKillAfter
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
