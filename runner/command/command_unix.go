//go:build unix

package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// run starts the command, waits for it and for everything it left behind,
// and records the outcome in res.
func (c *Command) run(ctx context.Context, st *commandState, path string, res *runner.Result, n, maxAttempts int) {
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

	window := c.window()
	guard := &attemptGuard{limit: max(c.MaxOutput, 0), kept: output.DefaultMaxKeep}
	stdout := &pump{name: "stdout", fd: outR, buf: &st.outBuf, live: c.Stdout, window: window, guard: guard, done: make(chan struct{})}
	if c.Stdout == nil || c.KeepStdout {
		stdout.keep = output.NewCapture(c.TempDir, c.spillThreshold(), window)
		stdout.keep.MemoryFallback = c.memoryFallback()
		stdout.keep.TailBuf = &st.tailBuf
	}
	stderr := &pump{name: "stderr", fd: errR, buf: &st.errBuf, live: c.Stderr, window: window, guard: guard, done: make(chan struct{})}

	p := &process{pid: pid, group: !c.Foreground, grace: c.killAfter()}
	if c.SuperviseEarly && st.marked {
		superviseGroup(p.groupID())
	}
	guard.stop = p.stop
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
	// an escaped process holds them: read what is left, but not forever.
	stdout.finish(pipeDrain)
	stderr.finish(pipeDrain)
	stdout.close()
	stderr.close()

	res.Stopped = p.stoppedBy()
	status := exitStatus(ws)
	if werr != nil {
		status = 255 // unknown: someone else reaped it
		res.Err = fmt.Errorf("waiting for %s: %w", c.Argv[0], werr)
	}
	c.finish(res, status, stdout, stderr)
	if err := st.stdin.err(); err != nil {
		guard.fail(&output.StreamError{Stream: "stdin", Keeping: true, Err: err})
	}
	var limit *output.LimitError
	switch problem := guard.problem(); {
	case terminalStop:
		// Waiting for a terminal it will never get: a failed attempt,
		// shown as the shell shows a job stopped by SIGTTIN.
		res.Stopped = nil
		res.Failed, res.Err, res.ExitCode = true, ErrTerminalStop, 128+int(syscall.SIGTTIN)
	case problem == nil:
	case errors.As(problem, &limit):
		if res.Stopped == problem {
			res.Stopped = nil // a failed attempt, evaluated as such
		}
		res.Failed, res.Err = true, problem
	default: // a *output.StreamError: the run cannot go on without losing output
		var intr *runner.Interrupt
		if !errors.As(res.Stopped, &intr) {
			res.Stopped = problem
		}
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

// lookPath finds the file to execute for name, as a shell does: a name with
// a slash is used as is (relative to dir); any other is looked up in the
// directories of pathList, an empty entry meaning the working directory.
// The first executable regular file wins; when there is none but some
// candidate exists, the error is EACCES (126), else ErrCommandNotFound
// (127).
func lookPath(name, pathList, dir string) (string, *StartError) {
	if name == "" {
		return "", &StartError{Name: name, Err: ErrCommandNotFound, Code: 127}
	}
	if strings.Contains(name, "/") {
		fi, err := os.Stat(inDir(dir, name))
		switch {
		case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR):
			return "", &StartError{Name: name, Err: syscall.ENOENT, Code: 127}
		case err != nil:
			return "", &StartError{Name: name, Err: errnoOf(err), Code: 126}
		case fi.IsDir():
			return "", &StartError{Name: name, Err: syscall.EISDIR, Code: 126}
		case !executable(inDir(dir, name), fi):
			return "", &StartError{Name: name, Err: syscall.EACCES, Code: 126}
		}
		return name, nil
	}
	denied := false
	for _, d := range filepath.SplitList(pathList) {
		if d == "" {
			d = "."
		}
		cand := d + "/" + name
		fi, err := os.Stat(inDir(dir, cand))
		if err != nil {
			continue
		}
		if fi.IsDir() || !executable(inDir(dir, cand), fi) {
			denied = true
			continue
		}
		return cand, nil
	}
	if denied {
		return "", &StartError{Name: name, Err: syscall.EACCES, Code: 126}
	}
	return "", &StartError{Name: name, Err: ErrCommandNotFound, Code: 127}
}

// inDir resolves a relative path against the child's working directory.
func inDir(dir, path string) string {
	if dir == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

func executable(path string, fi os.FileInfo) bool {
	return fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 && syscall.Access(path, 1 /* X_OK */) == nil
}

// errnoOf returns the errno inside err, or err itself.
func errnoOf(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}

// startError explains a failed fork/exec of path.
func startError(name, path, dir string, err error) *StartError {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return &StartError{Name: name, Err: err, Code: 126}
	}
	if dir != "" {
		if fi, serr := os.Stat(dir); serr != nil || !fi.IsDir() {
			return &StartError{Name: name, Err: fmt.Errorf("cannot change directory to %s: %w", dir, errno), Code: 126}
		}
	}
	if errno == syscall.ENOENT {
		if _, serr := os.Stat(inDir(dir, path)); serr != nil {
			return &StartError{Name: name, Err: errno, Code: 127}
		}
		// The file is there: its interpreter is not, which is "not found"
		// (127) for sh, bash, env and timeout too.
		if interp := shebang(inDir(dir, path)); interp != "" {
			return &StartError{Name: name, Err: fmt.Errorf("%s: bad interpreter: %w", interp, errno), Code: 127}
		}
	}
	return &StartError{Name: name, Err: errno, Code: 126}
}

// shebang returns the interpreter named on a script's #! line, or "".
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, 256)
	n, _ := f.Read(b)
	line, ok := bytes.CutPrefix(b[:n], []byte("#!"))
	if !ok {
		return ""
	}
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if f := strings.Fields(string(line)); len(f) > 0 {
		return f[0]
	}
	return ""
}

// process is one attempt's leader and, through its process group and
// retry's orphans, everything it started.
type process struct {
	pid   int
	group bool // the leader leads its own process group
	grace time.Duration

	mu      sync.Mutex
	exited  bool      // the leader exited (it may not be reaped yet)
	stopped error     // why stop signalled it
	killAt  time.Time // when stop's grace ends
	timer   *time.Timer
}

// send signals the attempt's process group, or the leader alone when it
// runs in retry's own group. It is only called while the leader is not
// reaped, so its pid (the group's id) cannot have been reused.
func (p *process) send(sig syscall.Signal) {
	if p.group {
		kill(-p.pid, sig)
	} else {
		kill(p.pid, sig)
	}
}

// stop signals the attempt because its context is done: the *runner.Interrupt's
// signal or SIGTERM, then SIGCONT (a stopped process must see it), and
// SIGKILL when the grace ends. It does nothing once the leader exited.
func (p *process) stop(cause error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited || p.stopped != nil {
		return
	}
	if cause == nil {
		cause = context.Canceled
	}
	p.stopped = cause
	if p.grace < 0 {
		p.killAt = time.Now()
		p.send(syscall.SIGKILL)
		return
	}
	sig := syscall.SIGTERM
	var intr *runner.Interrupt
	if errors.As(cause, &intr) && intr.Signal != 0 {
		sig = intr.Signal
	}
	p.send(sig)
	if sig != syscall.SIGKILL && sig != syscall.SIGCONT {
		p.send(syscall.SIGCONT)
	}
	p.killAt = time.Now().Add(p.grace)
	p.timer = time.AfterFunc(p.grace, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.exited {
			p.send(syscall.SIGKILL)
		}
	})
}

// killNow sends SIGKILL to the attempt at once: a second signal to retry
// during the grace, or a leader stopped waiting for the terminal. cause is
// recorded when nothing stopped the attempt before. It reports whether the
// leader was still running.
func (p *process) killNow(cause error) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited {
		return false
	}
	if p.stopped == nil {
		p.stopped = cause
	}
	if p.timer != nil {
		p.timer.Stop()
	}
	p.killAt = time.Now()
	p.send(syscall.SIGKILL)
	return true
}

func (p *process) stoppedBy() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped
}

// wait waits for the leader to exit and reaps it.
func (p *process) wait() (syscall.WaitStatus, error) {
	return waitLeader(p.pid, func() {
		p.mu.Lock()
		p.exited = true
		if p.timer != nil {
			p.timer.Stop()
		}
		p.mu.Unlock()
	})
}

// sweep ends what the attempt left behind once its leader is reaped: the
// rest of its process group and, when retry is a subreaper, retry's other
// children (orphans of the attempt that escaped the group), and when the
// attempts are marked (EnableSupervisor), every process of the run, found
// by its mark wherever it moved. The common case, nothing left, costs a
// kill(2) and a waitid(2).
//
// It returns how many processes it saw alive when it gave up; 0 when
// everything is gone.
func (p *process) sweep(st *commandState) int {
	groupLive := p.group && syscall.Kill(-p.pid, 0) == nil
	var kids []int
	if st.subreaper {
		kids = children(nil)
	}
	if !groupLive && len(kids) == 0 {
		groupGone(p.groupID())
		return 0
	}
	p.mu.Lock()
	stopped, killAt := p.stopped != nil, p.killAt
	p.mu.Unlock()
	if !stopped {
		killAt = time.Now().Add(max(p.grace, 0))
	}
	left := p.sweepSlow(st, stopped, killAt, groupLive, kids)
	if left == 0 {
		groupGone(p.groupID())
	}
	return left
}

// groupID is the attempt's process group, 0 when it runs in retry's.
func (p *process) groupID() int {
	if p.group {
		return p.pid
	}
	return 0
}

// sweepAfterKill is how long the sweep goes on after SIGKILL while it still
// finds processes and makes no progress; sweepBound is how long it goes on
// after SIGKILL at most, while passes still find new ones or fewer alive
// (a chain or a fork loop racing it, a loaded machine).
const (
	sweepAfterKill = 5 * time.Second
	sweepBound     = 20 * time.Second
)

// sweepScanEvery is how often the sweep looks for the run's marked
// processes while their grace runs (each look reads the environment of
// every process of the user); once it kills, every pass looks.
const sweepScanEvery = 100 * time.Millisecond

// sweepSlow signals the leftovers (SIGTERM and SIGCONT, unless stop already
// signalled the group), SIGKILLs them when the grace ends, and reaps retry's
// children among them, polling until a pass finds none alive; with marked
// attempts a last look for the run's mark must find none too. It starts
// the supervisor first: retry may be killed while it sweeps. It gives up
// once passes have made no progress (nothing new, no fewer alive) for
// sweepAfterKill after SIGKILL (a process in uninterruptible sleep cannot
// be waited for), or sweepBound after SIGKILL, and returns how many it
// still saw then: at least that many are left.
func (p *process) sweepSlow(st *commandState, groupTermed bool, killAt time.Time, groupLive bool, kids []int) int {
	if st.marked {
		superviseGroup(p.groupID())
	}
	id := runID()
	signalled := map[int]bool{}
	seen := map[int]bool{}
	killing := false
	var giveUp, bound, lastScan time.Time
	var marked []int
	lastCount := 0
	pause := 500 * time.Microsecond
	for polls := 1; ; polls++ {
		now := time.Now()
		if !killing && !now.Before(killAt) {
			killing = true
			giveUp, bound = now.Add(sweepAfterKill), now.Add(sweepBound)
		}
		if st.marked && (polls == 1 || killing || now.Sub(lastScan) >= sweepScanEvery) {
			marked = runProcesses(marked[:0], id, nil)
			lastScan = now
		}
		switch {
		case killing:
			if groupLive {
				kill(-p.pid, syscall.SIGKILL)
			}
			for _, kid := range kids {
				signalKid(st, kid, syscall.SIGKILL)
			}
			for _, pid := range marked {
				signalChecked(pid, id, nil, syscall.SIGKILL)
			}
		default:
			if groupLive && !groupTermed {
				kill(-p.pid, syscall.SIGTERM)
				kill(-p.pid, syscall.SIGCONT)
				groupTermed = true
			}
			for _, kid := range kids {
				if signalled[kid] {
					continue
				}
				signalled[kid] = true
				if pg, err := syscall.Getpgid(kid); err == nil && p.group && pg == p.pid && groupTermed {
					continue // the group's signal reached it
				}
				signalKid(st, kid, syscall.SIGTERM)
			}
			for _, pid := range marked {
				if signalled[pid] {
					continue
				}
				signalled[pid] = true
				if pg, err := syscall.Getpgid(pid); err == nil && p.group && pg == p.pid && groupTermed {
					continue
				}
				signalChecked(pid, id, nil, syscall.SIGTERM)
				signalChecked(pid, id, nil, syscall.SIGCONT)
			}
		}
		for _, kid := range kids {
			// Reap it if it is ours and has exited; one that is not
			// ours (ECHILD) or still runs is looked at in the next pass.
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(kid, &ws, syscall.WNOHANG, nil)
		}
		groupLive = p.group && groupAlive(p.pid, polls > 3)
		if st.subreaper {
			kids = children(kids[:0])
		} else {
			kids = kids[:0]
		}
		marked = slices.DeleteFunc(marked, func(pid int) bool { return !liveProcess(pid) })
		if !groupLive && len(kids) == 0 && len(marked) == 0 {
			if !st.marked {
				return 0
			}
			// Gone, as far as this pass saw: a last look for the mark
			// must find nothing either.
			marked = runProcesses(marked[:0], id, nil)
			lastScan = time.Now()
			if len(marked) == 0 {
				return 0
			}
		}
		foundNew := false
		for _, list := range [][]int{kids, marked} {
			for _, pid := range list {
				if !seen[pid] {
					seen[pid] = true
					foundNew = true
				}
			}
		}
		// New processes, or fewer alive than the last pass (the killed
		// ones still exit on a loaded machine): progress, worth another
		// sweepAfterKill, within sweepBound.
		count := len(kids) + len(marked)
		if killing && (foundNew || count < lastCount) {
			if later := time.Now().Add(sweepAfterKill); later.After(giveUp) {
				giveUp = later
			}
			if giveUp.After(bound) {
				giveUp = bound
			}
		}
		lastCount = count
		if killing && time.Now().After(giveUp) {
			left := map[int]bool{}
			for _, list := range [][]int{kids, marked} {
				for _, pid := range list {
					left[pid] = true
				}
			}
			if len(left) == 0 && groupLive {
				return 1 // at least one in the group
			}
			return len(left)
		}
		wait := pause
		if !killing {
			wait = min(wait, time.Until(killAt))
		}
		time.Sleep(max(wait, 0))
		if killing && foundNew {
			pause = 500 * time.Microsecond // processes keep coming: look again soon
		} else {
			pause = min(2*pause, 50*time.Millisecond)
		}
	}
}

// liveProcess reports whether pid exists and is not a zombie.
func liveProcess(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// kill sends sig to pid, a process group when negative. It does not say
// whether the signal went out: the target may be gone already (ESRCH), and
// what matters is what is alive afterwards, which the callers look at
// (groupAlive, children) rather than trusting a signal sent.
func kill(pid int, sig syscall.Signal) { _ = syscall.Kill(pid, sig) }

// signalKid signals one of retry's orphaned children and, when it leads a
// process group of its own (it called setsid or setpgid), that group.
func signalKid(st *commandState, kid int, sig syscall.Signal) {
	kill(kid, sig)
	pg, err := syscall.Getpgid(kid)
	leads := err == nil && pg == kid && pg != st.pgid
	if leads {
		kill(-pg, sig)
	}
	if sig != syscall.SIGKILL {
		kill(kid, syscall.SIGCONT)
		if leads {
			kill(-pg, syscall.SIGCONT)
		}
	}
}

// groupAlive reports whether process group pgid has a member. A deep check
// does not count zombies, which stay in the group until their parent (init,
// when not retry) reaps them.
func groupAlive(pgid int, deep bool) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	return !deep || groupHasLive(pgid)
}

func getpgid(pid int) (int, error) { return syscall.Getpgid(pid) }

// leaderWatch is what awaitLeader does while the leader runs; nil fields
// are skipped.
type leaderWatch struct {
	slow    func()                   // once the leader has run supervisorAfter
	stopped func(sig syscall.Signal) // once, when the leader is found stopped
}
