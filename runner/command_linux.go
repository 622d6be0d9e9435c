package runner

import (
	"os"
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

// children appends the pids of retry's children to out. A waitid(2) that
// finds no child at all makes the common case one system call; otherwise
// it reads /proc/self/task/*/children (an orphan is adopted by any of
// retry's threads), or scans /proc when the kernel lacks those files.
func children(out []int) []int {
	var info unix.Siginfo
	if unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil) == unix.ECHILD {
		return out
	}
	tasks, err := readNames("/proc/self/task")
	if err != nil {
		return scanProc(out, func(_ int, ppid, _ int, _ byte) bool { return ppid == os.Getpid() })
	}
	for _, tid := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + tid + "/children")
		if err != nil {
			return scanProc(out[:0], func(_ int, ppid, _ int, _ byte) bool { return ppid == os.Getpid() })
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
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

// isTerminal reports whether f is a terminal, without changing its mode.
func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	rc.Control(func(fd uintptr) {
		_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		tty = err == nil
	})
	return tty
}

func pipeCloexec(p *[2]int) error { return syscall.Pipe2(p[:], syscall.O_CLOEXEC) }
