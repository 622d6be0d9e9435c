//go:build unix

package command

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// run starts the command, waits for it and for everything it left behind,
// and records the outcome in res.
// stream, when set, receives the command's stdout instead of Stdout, and
// nothing of it is kept (AttemptStream).
func (c *Command) run(ctx context.Context, st *commandState, path string, res *runner.Result, n, maxAttempts int, stream io.Writer) {
	var out, errs [2]int
	if err := pipeCloexec(&out); err != nil {
		notStarted(res, &StartError{Name: c.Argv[0], Err: os.NewSyscallError("pipe", err), Code: 126})
		return
	}
	outR, outW := out[0], out[1]
	if err := pipeCloexec(&errs); err != nil {
		syscall.Close(outR)
		syscall.Close(outW)
		notStarted(res, &StartError{Name: c.Argv[0], Err: os.NewSyscallError("pipe", err), Code: 126})
		return
	}
	errR, errW := errs[0], errs[1]
	stdin, closeStdin, detach, err := st.stdin.attach()
	if err != nil {
		syscall.Close(outR)
		syscall.Close(outW)
		syscall.Close(errR)
		syscall.Close(errW)
		notStarted(res, &StartError{Name: c.Argv[0], Err: fmt.Errorf("stdin: %w", err), Code: 126})
		return
	}
	attr := &syscall.ProcAttr{
		Dir:   c.Dir,
		Env:   st.attemptEnv(n, maxAttempts),
		Files: []uintptr{stdin, uintptr(outW), uintptr(errW)},
		Sys:   &syscall.SysProcAttr{Setpgid: !c.Foreground},
	}
	// On Linux the leader gets SIGKILL when retry dies, even of SIGKILL
	// (PR_SET_PDEATHSIG). The kernel ties it to the thread that forked, not
	// the process: the fork runs on a thread locked for the call, and since
	// no goroutine of retry ever exits locked to a thread, that thread lives
	// as long as retry does.
	withDeathSignal(attr.Sys)
	if c.SuperviseEarly && st.marked {
		superviseGroup(0) // started before the attempt's first process
	}
	runtime.LockOSThread()
	pid, err := syscall.ForkExec(path, c.Argv, attr)
	runtime.UnlockOSThread()
	syscall.Close(outW)
	syscall.Close(errW)
	if closeStdin {
		syscall.Close(int(stdin))
	}
	if err != nil {
		syscall.Close(outR)
		syscall.Close(errR)
		if detach != nil {
			detach()
		}
		notStarted(res, startError(c.Argv[0], path, c.Dir, err))
		return
	}

	stdout, stderr, guard := c.pumps(st, stream)
	stdout.fd, stderr.fd = outR, errR
	stdout.reader = st.reader

	p := &process{pid: pid, group: !c.Foreground, grace: c.killAfter()}
	p.killBy, _ = runner.StopBy(ctx) // the run's deadline cuts the grace
	if c.SuperviseEarly && st.marked {
		superviseGroup(p.groupID())
	}
	guard.stop = p.stop
	st.reader.attempt(func() { heldStdoutLost(st.reader, stdout) })
	defer st.reader.attempt(nil)
	c.current.Store(p)
	unwatch := context.AfterFunc(ctx, func() { p.stop(context.Cause(ctx)) })
	// The recording of stdin can fail (a full TMPDIR): the attempt must
	// not run on with its stdin cut short.
	st.stdin.onFail(func(err error) { guard.fail(&output.StreamError{Stream: "stdin", Keeping: true, Err: err}) })
	terminalStop := false
	watch := leaderWatch{stopped: func(sig syscall.Signal) {
		if sig == syscall.SIGTTIN || sig == syscall.SIGTTOU {
			terminalStop = true
			p.killNow(ErrTerminalStop)
			return
		}
		// Stopped by SIGSTOP or SIGTSTP, it would wait forever: a stuck
		// attempt, stopped and classified as one that timed out.
		res.Warnings = append(res.Warnings, fmt.Sprintf("stopped by %s: stopping it as stuck (retry, timeout)", unix.SignalName(sig)))
		p.stop(runner.ErrAttemptTimeout)
	}}
	if st.marked {
		watch.slow = func() { superviseGroup(p.groupID()) }
	}
	awaitLeader(pid, watch, stdout, stderr)
	ws, werr := p.wait()
	unwatch()
	c.current.Store(nil)
	if left := p.sweep(st); left > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("at least %s left running after the attempt: the sweep gave up (a process in uninterruptible sleep, or one that escaped retry)", plural(left, "process")))
	}

	if detach != nil {
		detach()
	}
	// Everything the attempt started is gone, so the pipes are at EOF unless
	// an escaped process holds them.
	c.conclude(res, p, exitStatus(ws), werr, stdout, stderr, st, guard)
	if terminalStop {
		// Waiting for a terminal it will never get: a failed attempt,
		// shown as the shell shows a job stopped by SIGTTIN.
		res.Stopped = nil
		res.Failed, res.Err, res.ExitCode = true, ErrTerminalStop, 128+int(syscall.SIGTTIN)
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "es"
}

// pipe returns a pipe whose parent end is an *os.File in non-blocking mode
// (read deadlines and Close interrupt its reads and writes) and whose child
// end is a plain blocking descriptor, never registered with the poller.
// Both are close-on-exec. parentReads tells which end is the parent's.
func pipe(parentReads bool) (parent *os.File, child int, err error) {
	var p [2]int
	if err := pipeCloexec(&p); err != nil {
		return nil, -1, os.NewSyscallError("pipe", err)
	}
	mine, theirs := p[0], p[1]
	if !parentReads {
		mine, theirs = p[1], p[0]
	}
	f, err := nonBlockingFile(mine)
	if err != nil {
		syscall.Close(mine)
		syscall.Close(theirs)
		return nil, -1, err
	}
	return f, theirs, nil
}

// nonBlockingFile puts fd in non-blocking mode and returns it as an
// *os.File, which registers it with the runtime's poller.
func nonBlockingFile(fd int) (*os.File, error) {
	if err := syscall.SetNonblock(fd, true); err != nil {
		return nil, os.NewSyscallError("setnonblock", err)
	}
	return os.NewFile(uintptr(fd), "|"+strconv.Itoa(fd)), nil
}

// start starts the pump's goroutine. When the pipe cannot be made a
// non-blocking file (it cannot fail for a pipe), it reads it blocking.
func (p *pump) start() {
	p.started = true
	f, err := nonBlockingFile(p.fd)
	if err != nil {
		f = os.NewFile(uintptr(p.fd), "|"+strconv.Itoa(p.fd))
	}
	p.r = f
	if len(*p.buf) == 0 {
		size := feedChunk
		if p.name == "stdout" {
			// A command's stdout can be large: fewer, larger reads, from a
			// pipe the kernel lets grow (growPipe).
			size = stdoutChunk
			growPipe(p.fd)
		}
		*p.buf = make([]byte, size)
	} else if p.name == "stdout" {
		growPipe(p.fd)
	}
	go p.run()
}

// close closes the pipe.
func (p *pump) close() {
	if p.r != nil {
		p.r.Close()
		return
	}
	syscall.Close(p.fd)
}

// exitStatus maps a wait status the way a shell does: the exit code, or
// 128+N for a death by signal N.
func exitStatus(ws syscall.WaitStatus) int {
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return -1
}
