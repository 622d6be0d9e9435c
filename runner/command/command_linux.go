package command

import (
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// EnableSubreaper makes retry a child subreaper (prctl
// PR_SET_CHILD_SUBREAPER): processes an attempt started that escape its
// process group (setsid, a double fork) are reparented to retry instead of
// init, so Command finds, stops and reaps them after the attempt. The CLI
// calls it once at start. While it is on, every child of retry that is alive
// after an attempt's leader exited counts as a leftover of that attempt:
// the process must not start children of its own while an attempt runs.
// It is Linux only; elsewhere it returns errors.ErrUnsupported.
func EnableSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// isSubreaper reports whether EnableSubreaper is in effect.
func isSubreaper() bool {
	var v int32
	err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&v)), 0, 0, 0)
	return err == nil && v != 0
}

// waitLeader waits for pid to exit, calls exited while it is still a zombie
// (its pid, the group's id, cannot be reused yet), then reaps it.
func waitLeader(pid int, exited func()) (syscall.WaitStatus, error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	exited()
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return ws, err
		}
	}
}

// awaitLeader returns once the attempt's leader pid exited (it is not
// reaped: waitLeader still reaps it), having started each pump whose pipe
// got something to read, or whose pipe is still open after the exit (a
// leftover process holds it); a pump left idle is at EOF with nothing read.
//
// It polls the pipes and a pidfd of the leader in one poll(2) from the
// calling goroutine. A command that writes nothing then costs no goroutine
// and no wake-up through the runtime's poller, and the goroutine holds its
// thread in the system call: with an idle P left, the scheduler does not
// hand this one over, and sysmon backs off instead of polling every 20µs.
// Together that is about 5% of the time of an attempt of /bin/false.
//
// Without a pidfd (Linux before 5.3, a seccomp filter) or when poll fails,
// it starts the pumps that are still idle and returns; waitLeader waits.
//
// While the leader runs it calls w.slow once the leader has run for
// supervisorAfter, and looks, then and every stopCheck, whether the leader
// is stopped (SIGSTOP, SIGTSTP, or SIGTTIN and SIGTTOU when it used the
// terminal from its background process group): a stopped leader would wait
// forever, so it calls w.stopped, once, and goes on waiting for the exit
// that follows.
func awaitLeader(pid int, w leaderWatch, pumps ...*pump) {
	defer func() {
		for _, p := range pumps {
			if p.idle() {
				p.start()
			}
		}
	}()
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	defer unix.Close(pidfd)
	var buf [3]unix.PollFd
	var of [3]*pump // the pump of each polled pipe
	exited := false
	for {
		// The pidfd first: once it reads as exited, the pipes polled
		// after it in the same call show the leader's end of them.
		fds := buf[:0]
		if !exited {
			fds = append(fds, unix.PollFd{Fd: int32(pidfd), Events: unix.POLLIN})
		}
		for _, p := range pumps {
			if p.idle() {
				of[len(fds)] = p
				fds = append(fds, unix.PollFd{Fd: int32(p.fd), Events: unix.POLLIN})
			}
		}
		if len(fds) == 0 {
			return
		}
		timeout := stopCheck
		switch {
		case exited:
			timeout = 0 // one look at the pipes after the exit
		case w.slow != nil:
			timeout = supervisorAfter
		}
		ready, err := unix.Poll(fds, timeout)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if ready == 0 && !exited {
			if w.slow != nil {
				w.slow()
				w.slow = nil
			}
			if w.stopped != nil {
				if sig, ok := stoppedBy(pid); ok {
					w.stopped(sig)
					w.stopped = nil
				}
			}
			continue
		}
		for i, fd := range fds {
			switch {
			case fd.Revents == 0:
			case int(fd.Fd) == pidfd:
				exited = true
			case fd.Revents == unix.POLLHUP:
				of[i].eof = true // no writer left and nothing to read
			default:
				of[i].start() // something to read (or an error to see)
			}
		}
		if exited && timeout == 0 {
			return // the deferred start takes what is still open
		}
	}
}

// stopCheck is how often, in milliseconds, awaitLeader looks whether the
// leader is stopped. Attempts shorter than supervisorAfter never pay for
// it.
const stopCheck = 200

// cldStopped is CLD_STOPPED, the siginfo code of a stopped child.
const cldStopped = 5

// stoppedBy reports whether the leader pid is stopped, and by which
// signal. It consumes the stop's report (waitid without WNOWAIT), never the
// exit's: WEXITED is not asked for.
func stoppedBy(pid int) (syscall.Signal, bool) {
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WNOHANG, nil); err != nil {
		return 0, false
	}
	if info.Signo != int32(unix.SIGCHLD) || info.Code != cldStopped {
		return 0, false
	}
	// si_status follows si_pid and si_uid in the SIGCHLD member of the
	// siginfo union, which starts at byte 16 on every Linux ABI Go supports.
	status := *(*int32)(unsafe.Add(unsafe.Pointer(&info), 24))
	return syscall.Signal(status), true
}

// withDeathSignal makes the attempt's leader get SIGKILL when retry dies
// (PR_SET_PDEATHSIG).
func withDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// children appends the pids of retry's children to out. A waitid(2) that
// finds no child at all makes the common case one system call; otherwise
// it reads /proc/self/task/*/children (an orphan is adopted by any of
// retry's threads), or scans /proc when the kernel lacks those files.
func children(out []int) []int {
	var info unix.Siginfo
	if unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil) == unix.ECHILD {
		return out
	}
	if onlySupervisor() {
		return out
	}
	tasks, err := readNames("/proc/self/task")
	if err != nil {
		return scanProc(out, func(pid int, ppid, _ int, _ byte) bool { return ppid == os.Getpid() && pid != supervisorPid() })
	}
	for _, tid := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + tid + "/children")
		if err != nil {
			return scanProc(out[:0], func(pid int, ppid, _ int, _ byte) bool { return ppid == os.Getpid() && pid != supervisorPid() })
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid != supervisorPid() {
				out = append(out, pid)
			}
		}
	}
	return out
}

// onlySupervisor reports, in two reads, whether the supervisor may be
// retry's only child: the thread that forked it has no other child, and
// neither has the main thread, which adopts the orphans (the kernel hands
// an orphan to the first live thread of its subreaper, the main thread, and
// Go never ends it). The leader of an attempt, forked by another thread,
// is reaped before anyone asks. It keeps the common case, nothing left, at
// two reads instead of one per thread while a supervisor runs.
func onlySupervisor() bool {
	sup, tid := supervisorPid(), supervisorThread()
	if sup == 0 {
		return false
	}
	tids := []int{os.Getpid()}
	if tid != 0 && tid != tids[0] {
		tids = append(tids, tid)
	}
	for _, t := range tids {
		b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(t) + "/children")
		if err != nil {
			return false
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err != nil || pid != sup {
				return false
			}
		}
	}
	return true
}

// groupHasLive reports whether process group pgid has a member that is not
// a zombie. It scans /proc.
func groupHasLive(pgid int) bool {
	return len(scanProc(nil, func(_ int, _ int, pg int, state byte) bool {
		return pg == pgid && state != 'Z' && state != 'X'
	})) > 0
}

// scanProc appends to out the processes in /proc that keep returns true for.
func scanProc(out []int, keep func(pid, ppid, pgid int, state byte) bool) []int {
	names, err := readNames("/proc")
	if err != nil {
		return out
	}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || len(f[0]) == 0 {
			continue
		}
		ppid, err1 := strconv.Atoi(f[1])
		pg, err2 := strconv.Atoi(f[2])
		if err1 == nil && err2 == nil && keep(pid, ppid, pg, f[0][0]) {
			out = append(out, pid)
		}
	}
	return out
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func pipeCloexec(p *[2]int) error { return syscall.Pipe2(p[:], syscall.O_CLOEXEC) }

// Reraise resets sig (signal.Reset) and raises it on the calling thread,
// so that it ends the process before Reraise returns; it returns only when
// sig was ignored when the process started (signal.Reset restores that).
// For SIGINT, SIGTERM and SIGHUP the runtime's handler, which Reset
// leaves, dies by the signal itself. For SIGQUIT it would exit with status
// 2 and a goroutine dump instead (run_signal_quit, tried): SIGQUIT alone
// gets its default action set with rt_sigaction, and dumps no core
// (PR_SET_DUMPABLE 0, which a core_pattern pipe cannot override): a
// shell's status is wanted, not a core. The signal goes to this thread
// (tgkill), not to the process, which could deliver it to another thread
// while this one exits with a status first.
func Reraise(sig syscall.Signal) {
	signal.Reset(sig)
	if signal.Ignored(sig) {
		return
	}
	if sig == syscall.SIGQUIT {
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) // best effort: at worst a core
		// A kernel struct sigaction of zeros is SIG_DFL, no flags, an
		// empty mask, in every architecture's layout; 32 bytes cover
		// them all. On failure the caller exits with 128+N instead.
		var dfl [4]uint64
		_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
}

// stdoutChunk is the size of the stdout pump's reads.
const stdoutChunk = 256 << 10

// growPipe asks the kernel to let the pipe fd holds grow to 1 MiB (the
// unprivileged maximum, /proc/sys/fs/pipe-max-size) instead of 64 KiB: a
// command writing a lot then wakes retry up for a sixteenth as many reads.
// When the kernel refuses (the user's pipe buffers are over their limit)
// the pipe stays as it is.
func growPipe(fd int) { _, _ = unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, 1<<20) }
