//go:build linux

package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/retry-dev/retry/runner"
)

// The tests of an attempt's processes: its group, how it is stopped, and
// what it leaves behind.

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
