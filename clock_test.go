//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The scripts' clock of the retry budget. A script that counts what a
// refilling token bucket allows (10 tokens a second) cannot race the
// machine: on a loaded machine the attempts are slower, the bucket earns
// more while they run, and the count changes. `clock start` gives the
// script a clock of its own, a file holding a time, which the retry
// processes it runs afterwards read through $RETRYTEST_CLOCK. The clock
// stands still: it moves when the script moves it (`clock advance D`) and
// when retry sleeps, by what it slept (the wait for the refill of
// --when-empty wait). The scopes' buckets and adaptive limiters, in files
// or in Redis, run on it; everything else (delays, --max-time, timeouts)
// keeps the real clock.
//
// The variable is read by this test binary's retry program only, which
// hands the clock to cmd (see scriptPrograms): the retry binary built from
// main.go never reads it.
const clockEnv = "RETRYTEST_CLOCK"

// clockEpoch is where `clock start` sets the clock.
var clockEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func init() { scriptCommands["clock"] = cmdClock }

// cmdClock is `clock start` (a clock file at clockEpoch, named by
// $RETRYTEST_CLOCK for the commands that follow) or `clock advance D`
// (D a Go duration).
func cmdClock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: clock start | clock advance DURATION")
	}
	switch {
	case args[0] == "start" && len(args) == 1:
		path := ts.MkAbs(".clock")
		ts.Check(os.WriteFile(path, []byte(clockEpoch.Format(time.RFC3339Nano)+"\n"), 0o600))
		scriptSetenv(ts, clockEnv, path)
	case args[0] == "advance" && len(args) == 2:
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		path := ts.Getenv(clockEnv)
		if path == "" {
			ts.Fatalf("clock advance: no clock: clock start first")
		}
		ts.Check(fileClock(path).advance(d))
	default:
		ts.Fatalf("usage: clock start | clock advance DURATION")
	}
}

// fileClock is the clock in the file it names.
type fileClock string

// scriptClock returns the clock $RETRYTEST_CLOCK names, or nil.
func scriptClock() *fileClock {
	path := os.Getenv(clockEnv)
	if path == "" {
		return nil
	}
	c := fileClock(path)
	return &c
}

// Now returns the clock's time. A clock that cannot be read ends the
// process: the script that set it up is broken.
func (c fileClock) Now() time.Time {
	var t time.Time
	if err := c.update(func(now time.Time) time.Time { t = now; return now }); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", clockEnv, err)
		os.Exit(2)
	}
	return t
}

// Sleep sleeps for d on the real clock and then moves this clock by what
// was slept: d, or less when ctx ended the sleep.
func (c fileClock) Sleep(ctx context.Context, d time.Duration) error {
	start := time.Now()
	err := sleepCtx(ctx, d)
	slept := d
	if err != nil {
		slept = min(time.Since(start), d)
	}
	if aerr := c.advance(slept); aerr != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", clockEnv, aerr)
		os.Exit(2)
	}
	return err
}

func (c fileClock) advance(d time.Duration) error {
	return c.update(func(now time.Time) time.Time { return now.Add(d) })
}

// update replaces the clock's time t with fn(t), holding the file's lock.
func (c fileClock) update(fn func(time.Time) time.Time) error {
	f, err := os.OpenFile(string(c), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	b := make([]byte, 64)
	n, err := f.ReadAt(b, 0)
	if n == 0 {
		return fmt.Errorf("reading %s: %v", c, err)
	}
	now, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b[:n])))
	if err != nil {
		return fmt.Errorf("%s: %v", c, err)
	}
	next := fn(now)
	if next.Equal(now) {
		return nil
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt([]byte(next.Format(time.RFC3339Nano)+"\n"), 0)
	return err
}

// sleepCtx sleeps for d or until ctx is done, returning ctx's cause then.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
