package cmd

import (
	"os"
	"os/signal"
	"syscall"
)

// signals is retry's subscription to the signals it forwards to an attempt.
//
// signal.Notify blocks its caller for 0.15–0.3 ms the first time (the
// runtime starts a thread locked to a goroutine that owns the signal mask,
// and hands it each signal in turn): Main subscribes in a goroutine as soon
// as the command line names run or wait, so that this overlaps with flag
// parsing and the plan, and runRetry waits for it before the first attempt
// starts. The signals are never unsubscribed: signal.Stop costs ~0.1 ms at
// exit, and a signal arriving after the run only cancels a finished context.
type signals struct {
	ready chan struct{}
	c     chan os.Signal
}

// notifySignals subscribes to SIGINT, SIGTERM, SIGHUP and SIGQUIT in the
// background (see watchSignals). SIGPIPE is received too, rather than fatal:
// a write to a closed stdout or stderr then fails with EPIPE, and retry
// stops the attempt and exits 141 itself, with nothing left running;
// attempts still start with SIGPIPE at its default (a handled signal is
// reset by exec, an ignored one would not be).
func notifySignals() *signals {
	s := &signals{ready: make(chan struct{}), c: make(chan os.Signal, 4)}
	go func() {
		signal.Notify(s.c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		close(s.ready)
	}()
	return s
}

// wait returns the channel once the subscription is in place.
func (s *signals) wait() <-chan os.Signal {
	<-s.ready
	return s.c
}
