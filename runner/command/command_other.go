//go:build unix && !linux

package command

import (
	"errors"
	"os/signal"
	"syscall"
	"time"
)

// EnableSubreaper makes retry a child subreaper so that processes escaping
// an attempt's process group are found and stopped. It is Linux only: here
// it returns errors.ErrUnsupported.
func EnableSubreaper() error { return errors.ErrUnsupported }

func isSubreaper() bool { return false }

// waitLeader reaps pid and calls exited. Without waitid(WNOWAIT) the leader
// is reaped first.
func waitLeader(pid int, exited func()) (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			exited()
			return ws, err
		}
	}
}

// awaitLeader starts the pumps at once: without pidfds, poll(2) cannot
// tell when the leader exits, and the caller's wait does the waiting.
//
// A stopped leader is not detected here.
func awaitLeader(pid int, w leaderWatch, pumps ...*pump) {
	for _, p := range pumps {
		p.start()
	}
}

func children(out []int) []int { return out }

// withDeathSignal does nothing: PR_SET_PDEATHSIG is Linux only. Elsewhere
// an attempt outlives a retry killed by SIGKILL (any other signal is
// forwarded); its process group can be killed by hand.
func withDeathSignal(a *syscall.SysProcAttr) {}

// groupHasLive cannot tell zombies apart here: a group with members is live.
func groupHasLive(pgid int) bool { return true }

// pipeCloexec makes a pipe and marks both ends close-on-exec under
// syscall.ForkLock, so no concurrent fork inherits them.
func pipeCloexec(p *[2]int) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p[:]); err != nil {
		return err
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	return nil
}

// Reraise resets sig to its default and raises it on the process, then
// waits for it to end the process (at most a second); it returns only when
// sig was ignored when the process started. A SIGQUIT so raised dumps no
// core (RLIMIT_CORE 0): a shell's status is wanted, not a core.
func Reraise(sig syscall.Signal) {
	signal.Reset(sig)
	if signal.Ignored(sig) {
		return
	}
	if sig == syscall.SIGQUIT {
		_ = syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{}) // best effort: at worst a core
	}
	_ = syscall.Kill(syscall.Getpid(), sig) // on failure the caller exits with 128+N
	time.Sleep(time.Second)
}

// stdoutChunk is the size of the stdout pump's reads.
const stdoutChunk = 64 << 10

// growPipe does nothing: pipes cannot be resized here.
func growPipe(fd int) {}
