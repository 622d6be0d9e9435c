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

// notifySignals subscribes to SIGINT, SIGTERM and SIGHUP in the background.
func notifySignals() *signals {
	s := &signals{ready: make(chan struct{}), c: make(chan os.Signal, 4)}
	go func() {
		signal.Notify(s.c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		close(s.ready)
	}()
	return s
}

// wait returns the channel once the subscription is in place.
func (s *signals) wait() <-chan os.Signal {
	<-s.ready
	return s.c
}
