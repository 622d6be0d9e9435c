// Package iostreams is the world a command of retry sees: its standard
// streams, whether they are terminals, and the environment its flag
// defaults and CI conventions come from. cmd.Main builds the process's
// once (System); tests build one of buffers, so that a whole run goes
// in-process.
package iostreams

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/retry-dev/retry/runner/command"
)

// IOStreams is the world a command sees. Tests build one of buffers, so
// that a run reads neither the real terminal nor the RETRY_<FLAG> and CI
// variables of the test's own environment. (Where scopes keep their state
// is still read from the process's environment: see plan.StateDir.)
type IOStreams struct {
	// In is retry's stdin: what --data @- and --input @- read. An attempt's
	// stdin must be a file, as the command source needs its descriptor (a
	// regular file is re-read from its offset by every attempt, a pipe is
	// recorded and replayed, a terminal is passed through with
	// --foreground): when In is an *os.File (the process's stdin; in a
	// test, a pipe or a temporary file) the attempts read it, and any other
	// reader, or nil, leaves them /dev/null. One field, not a reader beside
	// a file, so the two can never name different streams.
	In io.Reader
	// Out is retry's stdout: the final output, and every attempt's stdout
	// in live mode.
	Out io.Writer
	// ErrOut is retry's stderr: the log lines, and every attempt's stderr.
	ErrOut io.Writer

	// StdoutIsTerminal makes run's --stdout default live.
	StdoutIsTerminal bool
	// StderrIsTerminal gives the text log a status line while it sleeps,
	// and makes --ci auto choose no CI markup.
	StderrIsTerminal bool

	// Getenv returns the environment variable key, "" when it is unset:
	// the RETRY_<FLAG> defaults and the CI system's variables are read
	// through it. nil is an empty environment.
	Getenv func(key string) string

	// BudgetClock, when set, is the clock of the retry budget: the token
	// buckets and adaptive limiters, the scopes' in files and in Redis
	// (instead of the server's TIME) included. retry's sleeps go through
	// its Sleep, so the budget sees the time retry waits. nil: the real
	// clock. Only the tests' retry sets it (cmd.MainWithBudgetClock), to
	// run scripts on a clock they control.
	BudgetClock *Clock
}

// Clock is a clock other than the real one.
type Clock struct {
	Now func() time.Time
	// Sleep waits d or until ctx is done, returning context.Cause(ctx)
	// then.
	Sleep func(ctx context.Context, d time.Duration) error
}

// BudgetNow returns the retry budget's clock, nil for the real one.
func (s *IOStreams) BudgetNow() func() time.Time {
	if s == nil || s.BudgetClock == nil {
		return nil
	}
	return s.BudgetClock.Now
}

// BudgetSleep returns the retry budget's sleep, nil for the real one.
func (s *IOStreams) BudgetSleep() func(context.Context, time.Duration) error {
	if s == nil || s.BudgetClock == nil {
		return nil
	}
	return s.BudgetClock.Sleep
}

// System returns the process's standard streams and environment, each
// stream's terminal flag read once (golang.org/x/term).
func System() *IOStreams {
	return &IOStreams{
		In:               os.Stdin,
		Out:              os.Stdout,
		ErrOut:           os.Stderr,
		StdoutIsTerminal: command.IsTerminal(os.Stdout),
		StderrIsTerminal: command.IsTerminal(os.Stderr),
		Getenv:           os.Getenv,
	}
}

// Env returns the variable key of s's environment, "" when it is unset or
// s has none.
func (s *IOStreams) Env(key string) string {
	if s == nil || s.Getenv == nil {
		return ""
	}
	return s.Getenv(key)
}

// StdinFile returns the file behind In, nil when In is not a file.
func (s *IOStreams) StdinFile() *os.File {
	f, _ := s.In.(*os.File)
	return f
}

// OutFile returns the file behind Out (an *os.File, or the file of an
// Interruptible), nil when Out is not a file.
func (s *IOStreams) OutFile() *os.File {
	switch out := s.Out.(type) {
	case *os.File:
		return out
	case *Interruptible:
		return out.File()
	}
	return nil
}
