package command

import "time"

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
