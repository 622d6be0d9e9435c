package command

import (
	"context"
	"time"
)

// stop stops the attempt because its context is done: the gentle stop its
// OS has (p.gentle: the interrupt's signal or SIGTERM, then SIGCONT, to
// the group on Unix; CTRL_BREAK_EVENT to the group on Windows), then
// p.kill (SIGKILL to the group; TerminateJobObject) when the grace ends;
// p.kill at once when no grace is left or no gentle stop could be sent.
// It does nothing once the leader exited.
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
	grace := p.graceLeft(time.Now())
	if grace < 0 || !p.gentle(cause) {
		p.killAt = time.Now()
		p.kill()
		return
	}
	p.killAt = time.Now().Add(grace)
	p.timer = time.AfterFunc(grace, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.exited {
			p.kill()
		}
	})
}

// killNow kills the attempt at once: a second signal to retry during the
// grace, or (on Unix) a leader stopped waiting for the terminal. cause is
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
	p.kill()
	return true
}

// stoppedBy is why stop or killNow stopped the attempt; nil when nothing
// did.
func (p *process) stoppedBy() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped
}

// graceLeft is the grace a stop at now gives: p.grace, cut to what is
// left before killBy (the run's deadline, runner.StopBy); negative for
// none: the attempt is killed at once (SIGKILL to its group on Unix,
// TerminateJobObject on Windows).
func (p *process) graceLeft(now time.Time) time.Duration {
	g := p.grace
	if g < 0 || p.killBy.IsZero() {
		return g
	}
	if left := p.killBy.Sub(now); left < g {
		g = left
	}
	if g <= 0 {
		return -1
	}
	return g
}
