package command

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The supervisor is what ends a run's processes when retry itself is killed
// with SIGKILL, which nothing inside retry can catch: a second process, a
// re-execution of retry's own binary (/proc/self/exe) in a session of its
// own, that reads a pipe whose write end only retry holds. When the read
// sees end of file without retry's goodbye, retry is gone, and the
// supervisor SIGKILLs every process of the run, found by what it cannot
// easily shed:
//
//   - the run's marker in its environment (RunIDVar): every attempt and
//     hook inherits it, and so do their children, grandchildren, double
//     forks, setsid, nohup and setpgrp daemons, whatever signals they
//     ignore and whatever they did with their stdout;
//   - the process group of the attempt that was running, which holds the
//     processes that cleared their environment but stayed in the group.
//
// It passes over /proc again until a pass finds nothing alive, for at most
// supervisorBound. A process that both cleared its environment (env -i) and
// left the attempt's process group, or that runs as another user, is not
// found.
//
// The supervisor starts lazily, so that quick attempts pay nothing: once an
// attempt has run for supervisorAfter, or when a sweep finds leftovers.
// Before that, the attempt's leader still dies with retry
// (PR_SET_PDEATHSIG).
//
// retry is the supervisor's parent, and waits for it: a supervisor that
// dies without retry's goodbye (someone killed it) is replaced at once by
// another for the same run, told every process group the first one knew,
// up to supervisorRestarts times a run.

// supervisorArg is argv[1] of the supervisor; argv[2] is the run's id. The
// file descriptor 3 is the pipe from retry.
const supervisorArg = "__retry-supervisor"

// supervisorAfter is how long an attempt runs before the supervisor starts.
const supervisorAfter = 50 // milliseconds

// supervisorBound is how long the supervisor goes on killing once retry is
// gone, while passes still find processes of the run.
const supervisorBound = 10 * time.Second

// supervisorRestarts is how many times a run replaces a supervisor that
// died without its goodbye; past that (a supervisor that cannot live) the
// run goes on without one.
const supervisorRestarts = 10

// supervision is this process's supervisor: off until EnableSupervisor,
// then started at most once.
var supervision supervisorState

type supervisorState struct {
	mu      sync.Mutex
	enabled bool
	tried   bool
	w       *os.File // the pipe's write end
	pid     atomic.Int64
	tid     atomic.Int64 // the thread that forked it: its parent
	groups  map[int]bool // the groups told to the supervisor
	fence   int64        // FenceRun's bound (CLOCK_BOOTTIME ns), 0 for none
	// restarts counts the supervisors that replaced one that died.
	restarts int
}

// EnableSupervisor lets the runs of this process start a supervisor (see
// the top of this file): the CLI calls it once before a run of commands.
// Without it (tests of this package, a library user) nothing is started.
func EnableSupervisor() {
	supervision.mu.Lock()
	supervision.enabled = true
	fenced := supervision.fence != 0
	supervision.mu.Unlock()
	if fenced {
		superviseGroup(0) // the bound holds from the first moment of the attempt
	}
}

// IsSupervisor reports whether args (os.Args[1:]) are those of a
// supervisor that retry started: the CLI then calls Supervise instead of
// parsing them. The descriptor 3 must be a pipe.
func IsSupervisor(args []string) bool {
	if len(args) != 2 || args[0] != supervisorArg {
		return false
	}
	var st unix.Stat_t
	return unix.Fstat(3, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}

// supervisorPid is the supervisor's pid, 0 when none runs: a child of retry
// that is no leftover of an attempt. It waits for a supervisor being
// started (a replacement starts at any time) to have its pid recorded, so
// that a sweep never takes a new supervisor for a leftover.
func supervisorPid() int {
	supervision.mu.Lock()
	defer supervision.mu.Unlock()
	return int(supervision.pid.Load())
}

// supervisorThread is the thread of retry that forked the supervisor.
func supervisorThread() int { return int(supervision.tid.Load()) }

// superviseGroup starts the supervisor, unless it runs or cannot start,
// and tells it the attempt's process group pgid (0: none of its own).
func superviseGroup(pgid int) {
	s := &supervision
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.enabled {
		return
	}
	if !s.tried {
		s.tried = true
		s.groups = map[int]bool{}
		// The group is in the pipe before the supervisor starts: retry
		// may be killed as soon as it did.
		first := ""
		if pgid > 0 {
			first = "+" + strconv.Itoa(pgid) + "\n"
			s.groups[pgid] = true
		}
		if s.fence != 0 {
			first += "@" + strconv.FormatInt(s.fence, 10) + "\n"
		}
		s.w = startSupervisor(first)
		return
	}
	if s.w == nil || pgid <= 0 || s.groups[pgid] {
		return
	}
	s.groups[pgid] = true
	s.tell("+" + strconv.Itoa(pgid) + "\n")
}

// tell writes line to the supervisor. When that fails the supervisor died
// (someone killed it): watchSupervisor replaces it with one told every
// group in s.groups, line's included.
func (s *supervisorState) tell(line string) {
	_, _ = s.w.WriteString(line)
}

// groupLines are the lines that tell a new supervisor every group in
// s.groups, and the bound of FenceRun.
func (s *supervisorState) groupLines() string {
	var b strings.Builder
	for pg := range s.groups {
		b.WriteString("+" + strconv.Itoa(pg) + "\n")
	}
	if s.fence != 0 {
		b.WriteString("@" + strconv.FormatInt(s.fence, 10) + "\n")
	}
	return b.String()
}

// watchSupervisor waits for the supervisor pid to exit and reaps it (retry
// is its parent; nothing else waits for this pid). When it died while
// retry still needed it (no goodbye was said, and it is still the current
// one), another is started in its place, told every group, unless
// supervisorRestarts were started already.
func watchSupervisor(pid int) {
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			break
		}
	}
	s := &supervision
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil || int(s.pid.Load()) != pid {
		return // retry said goodbye: the supervisor exited as asked
	}
	s.w.Close()
	s.w = nil
	s.pid.Store(0)
	if s.restarts >= supervisorRestarts {
		return
	}
	s.restarts++
	s.w = startSupervisor(s.groupLines())
}

// groupGone tells the supervisor that the process group pgid is empty: its
// id may be reused.
func groupGone(pgid int) {
	s := &supervision
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil || !s.groups[pgid] {
		return
	}
	delete(s.groups, pgid)
	s.tell("-" + strconv.Itoa(pgid) + "\n")
}

// endSupervision says goodbye to the supervisor: the run ended and swept
// what it started, so the supervisor exits without a pass. Later attempts
// run without one.
func endSupervision() {
	s := &supervision
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return
	}
	if _, err := s.w.WriteString("q\n"); err != nil {
		s.pid.Store(0) // gone already
	}
	s.w.Close()
	s.w = nil
}

// startSupervisor starts the supervisor with first already in its pipe and
// returns the pipe's write end, or nil when it could not start (then runs
// go on without one).
func startSupervisor(first string) *os.File {
	var p [2]int
	if err := pipeCloexec(&p); err != nil {
		return nil
	}
	if first != "" {
		_, _ = syscall.Write(p[1], []byte(first)) // an empty pipe holds a line
	}
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil
	}
	attr := &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{uintptr(null), uintptr(null), uintptr(null), uintptr(p[0])},
		// A session of its own: a signal to retry's process group or
		// terminal does not reach it.
		Sys: &syscall.SysProcAttr{Setsid: true},
	}
	// The supervisor's parent is the forking thread: locked, so that its
	// id is the one to look at (onlySupervisor).
	runtime.LockOSThread()
	tid := unix.Gettid()
	pid, err := syscall.ForkExec("/proc/self/exe", []string{"retry", supervisorArg, runID()}, attr)
	runtime.UnlockOSThread()
	syscall.Close(null)
	syscall.Close(p[0])
	if err != nil {
		syscall.Close(p[1])
		return nil
	}
	supervision.tid.Store(int64(tid))
	supervision.pid.Store(int64(pid))
	go watchSupervisor(pid)
	return os.NewFile(uintptr(p[1]), "supervisor")
}

// FenceRun bounds the run's processes in time: they must all be gone
// within d from now, whatever becomes of retry — a retry stopped by
// SIGSTOP, or one that cannot renew the lease its attempt runs under (a
// --state lock in Redis), no longer ends them itself. The supervisor
// SIGKILLs every process of the run when the bound passes, unless a later
// FenceRun moved it first; d ≤ 0 lifts it. A bound set starts the
// supervisor at once (or when EnableSupervisor comes), not 50 ms into the
// attempt. The bound is kept on CLOCK_BOOTTIME, which a suspended machine
// does not stop either. Without the supervisor (EnableSupervisor never
// called, or it cannot start) it does nothing.
func FenceRun(d time.Duration) {
	at := int64(0)
	if d > 0 {
		at = bootTime() + int64(d)
	}
	s := &supervision
	s.mu.Lock()
	s.fence = at
	if s.w != nil {
		s.tell("@" + strconv.FormatInt(at, 10) + "\n")
	}
	start := at != 0 && s.enabled && !s.tried
	s.mu.Unlock()
	if start {
		superviseGroup(0) // starts the supervisor, which reads the bound first
	}
}

// bootTime is CLOCK_BOOTTIME in nanoseconds.
func bootTime() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

// Supervise is the supervisor's main: it reads what retry tells it on the
// descriptor 3 until retry says goodbye (it returns at once) or is gone
// (end of file: it kills every process of the run id, then returns). A
// bound (FenceRun) that passes kills them too, and it reads on. It returns
// the exit status, 0.
func Supervise(id string) int {
	lines := make(chan string)
	go func() {
		r := bufio.NewReader(os.NewFile(3, "run"))
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- strings.TrimSpace(line)
		}
	}()
	groups := map[int]bool{}
	supervise(lines, bootTime, func() { killAll(id, groups) }, groups)
	return 0
}

// supervise follows what retry tells it (lines; closed when retry is
// gone) on the clock now (nanoseconds): "+PGID" and "-PGID" add and remove
// a group of groups, "@T" sets the bound T (0: none), "q" is goodbye. It
// calls kill when retry is gone, and when the bound passes.
func supervise(lines <-chan string, now func() int64, kill func(), groups map[int]bool) {
	fence := int64(0)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				kill()
				return
			}
			if line == "q" {
				return
			}
			if len(line) < 2 {
				continue
			}
			if line[0] == '@' {
				if at, err := strconv.ParseInt(line[1:], 10, 64); err == nil {
					fence = at
					timer.Stop()
					if fence > 0 {
						timer.Reset(time.Duration(max(fence-now(), 0)))
					}
				}
			} else if pg, err := strconv.Atoi(line[1:]); err == nil && pg > 0 {
				groups[pg] = line[0] == '+'
			}
		case <-timer.C:
			if fence <= 0 {
				continue
			}
			if left := fence - now(); left > 0 { // the timer's clock did not count a suspension
				timer.Reset(time.Duration(left))
				continue
			}
			fence = 0
			kill()
		}
	}
}

// killAll kills the run's processes until a pass finds none, for at most
// supervisorBound.
func killAll(id string, groups map[int]bool) {
	deadline := time.Now().Add(supervisorBound)
	pause := time.Millisecond
	for killRun(id, groups) > 0 && time.Now().Before(deadline) {
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// killRun SIGKILLs every live process of run id or of one of groups, and
// returns how many it signalled.
func killRun(id string, groups map[int]bool) int {
	n := 0
	for _, pid := range runProcesses(nil, id, groups) {
		if signalChecked(pid, id, groups, syscall.SIGKILL) {
			n++
		}
	}
	return n
}

// runProcesses appends to out the live processes (not zombies) whose
// environment holds run id, or that are in one of groups, retry and its
// supervisor excepted.
func runProcesses(out []int, id string, groups map[int]bool) []int {
	self, sup := os.Getpid(), supervisorPid()
	return scanProc(out, func(pid, _, pgid int, state byte) bool {
		if pid == self || pid == sup || state == 'Z' || state == 'X' {
			return false
		}
		return groups[pgid] || hasRunID(pid, id)
	})
}

// hasRunID reports whether the environment of pid holds run id in
// RunIDVar. A process of another user cannot be read: it does not.
func hasRunID(pid int, id string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	prefix := []byte(RunIDVar + "=")
	for len(b) > 0 {
		kv := b
		if i := bytes.IndexByte(b, 0); i >= 0 {
			kv, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			for _, f := range bytes.Fields(v) {
				if string(f) == id {
					return true
				}
			}
		}
	}
	return false
}

// signalChecked sends sig to pid when it is still a process of run id or
// of groups, through a pidfd so that a pid reused in between is never hit.
// It reports whether the signal was sent.
func signalChecked(pid int, id string, groups map[int]bool, sig syscall.Signal) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if err == unix.ENOSYS {
			return syscall.Kill(pid, sig) == nil
		}
		return false
	}
	defer unix.Close(fd)
	pg, err := syscall.Getpgid(pid)
	if err != nil || !(groups[pg] || hasRunID(pid, id)) {
		return false
	}
	return unix.PidfdSendSignal(fd, sig, nil, 0) == nil
}

// supervisorEnabled reports whether EnableSupervisor is on.
func supervisorEnabled() bool {
	supervision.mu.Lock()
	defer supervision.mu.Unlock()
	return supervision.enabled
}
