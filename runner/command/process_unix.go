//go:build unix

package command

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/retry-dev/retry/runner"
)

// retry's orphans, everything it started.
type process struct {
	pid   int
	group bool // the leader leads its own process group
	grace time.Duration
	// killBy is when everything must be killed whatever the grace (the
	// run's deadline: runner.StopBy); zero when there is none.
	killBy time.Time

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

// gentle sends the attempt the signal of its stop: the *runner.Interrupt's
// signal or SIGTERM, then SIGCONT (a stopped process must see it). On Unix
// it can always be sent.
func (p *process) gentle(cause error) bool {
	sig := syscall.SIGTERM
	var intr *runner.Interrupt
	if errors.As(cause, &intr) && intr.Signal != 0 {
		sig = intr.Signal
	}
	p.send(sig)
	if sig != syscall.SIGKILL && sig != syscall.SIGCONT {
		p.send(syscall.SIGCONT)
	}
	return true
}

// kill sends SIGKILL to the attempt.
func (p *process) kill() { p.send(syscall.SIGKILL) }

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
		killAt = time.Now().Add(max(p.graceLeft(time.Now()), 0))
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
