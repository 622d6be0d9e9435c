package cmd

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"runtime"
	"sync/atomic"
	"syscall"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/command"
)

// process is what a run of run or wait does to the retry process itself:
// the signals it forwards to an attempt and the child-subreaper switch.
// Main makes the one of the real process (newProcess); tests leave
// proc nil, or give fakes, and stop a run by cancelling its
// context instead of sending a signal.
type process struct {
	signals *signals
	// adoptOrphans makes retry a child subreaper (command.EnableSubreaper).
	adoptOrphans func() error
	// oneProc runs retry's Go code on one processor (oneProcForRequests).
	oneProc func()
	// received is the first signal that cancelled the run, 0 when none.
	received atomic.Int32
	// streams are retry's stdout and stderr: the first signal abandons a
	// write to them that is blocked (a reader that does not read).
	streams []*iostreams.Interruptible
}

// newProcess subscribes to the signals in the background (see signals) and
// names the subreaper switch, which only a run of commands turns on, and
// the one-processor switch, which only a run of requests turns on
// (process.start).
func newProcess() *process {
	return &process{signals: notifySignals(), adoptOrphans: adoptOrphans, oneProc: oneProcForRequests}
}

// oneProcForRequests runs the Go code of a run of HTTP or TCP attempts on
// one processor (GOMAXPROCS=1), unless the user set GOMAXPROCS. Such a run
// makes one request at a time, and net/http hands each one between
// goroutines (the caller's, the connection's writer and reader): with a
// second processor idle, every hand-over wakes a thread that spins looking
// for work, then sleeps again. bench/http.sh measured 1.41x the CPU of one
// curl making the same requests with two processors, 0.96x with one, and
// no more wall time. A run of commands keeps them all: each attempt waits
// in a system call, and with no processor idle the runtime's monitor
// (sysmon) takes the one back from every wait longer than 20 µs, 10% more
// CPU per attempt of /bin/false. A wait on a large JSON document costs the
// same CPU either way (docs/benchmarks.md).
func oneProcForRequests() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// adoptOrphans makes retry its attempts' subreaper and lets the run mark
// its processes and start a supervisor, which ends them even when retry is
// killed with SIGKILL (command.EnableSupervisor).
func adoptOrphans() error {
	command.EnableSupervisor()
	return command.EnableSubreaper()
}

// start prepares the process for the attempts of p (warn reports a
// second signal), once the plan is
// valid: when they are commands, retry becomes their orphans' subreaper
// (double forks and setsid reparent to retry, which stops and reaps them
// when the attempt ends; where the kernel has no subreapers the process
// group still covers the usual cases); when they are HTTP or TCP requests,
// retry's Go code runs on one processor (oneProcForRequests); then, once
// the signal subscription
// is in place, signals cancel the run (see watchSignals). A nil process
// does nothing.
func (pr *process) start(cancel context.CancelCauseFunc, p *plan.Plan, warn func(format string, args ...any)) {
	if pr == nil {
		return
	}
	switch {
	case p.Kind == acceptor.CommandAttempt && pr.adoptOrphans != nil:
		_ = pr.adoptOrphans()
	case p.Kind != acceptor.CommandAttempt && pr.oneProc != nil:
		pr.oneProc()
	}
	if pr.signals != nil {
		watchSignals(func(cause error) {
			var intr *runner.Interrupt
			if errors.As(cause, &intr) {
				pr.received.CompareAndSwap(0, int32(intr.Signal))
			}
			for _, s := range pr.streams {
				s.Interrupt(cause)
			}
			cancel(cause)
		}, pr.signals.wait(), p.Source, warn)
	}
}

// reraise ends retry by the signal that stopped its run, once everything
// is cleaned up and code (128+N) is decided: the signal is reset to its
// default and raised again, so that a calling shell sees a death by that
// signal and stops its loop, as it does for any command a Ctrl-C ends
// ("wait and cooperative exit"); the status it reports stays 128+N. It
// returns only when that did not end retry (the signal was ignored when
// retry started): Main then exits with code. A SIGQUIT raised so dumps no
// core (command.Reraise).
func (pr *process) reraise(code int) {
	if pr == nil {
		return
	}
	sig := syscall.Signal(pr.received.Load())
	if sig == 0 || code != 128+int(sig) {
		return
	}
	command.Reraise(sig)
}

// signals is retry's subscription to the signals it forwards to an attempt.
//
// signal.Notify blocks its caller for 0.15–0.3 ms the first time (the
// runtime starts a thread locked to a goroutine that owns the signal mask,
// and hands it each signal in turn): Main subscribes in a goroutine as soon
// as the command line names run or wait, so that this overlaps with flag
// parsing and the plan, and process.start waits for it before the first
// attempt starts. The signals are never unsubscribed: signal.Stop costs ~0.1 ms at
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

// watchSignals turns SIGINT, SIGTERM, SIGHUP and SIGQUIT into the run's
// cancellation (the attempt gets the signal, no other attempt starts, retry
// exits 128+N); a second one during the grace kills the attempt's process
// group at once, as timeout(1) and docker do.
//
// sigs is the subscription of notifySignals.
func watchSignals(cancel context.CancelCauseFunc, sigs <-chan os.Signal, src runner.Source, warn func(format string, args ...any)) {
	go func() {
		first := true
		for s := range sigs {
			sig := s.(syscall.Signal)
			if first {
				first = false
				cancel(&runner.Interrupt{Signal: sig})
				continue
			}
			if killer, ok := src.(interface{ Kill() bool }); ok && killer.Kill() {
				warn("%s again: killing the attempt's process group now (SIGKILL)", runner.SignalName(sig))
			}
		}
	}()
}
