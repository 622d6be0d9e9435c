package durable_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/durable"
)

const id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// cron is a test double of a crontab calling retry --state every tick: each
// invocation decodes the state from the bytes the previous one encoded, as
// from the file, and makes at most one attempt of exits (the exit status of
// each attempt, by its number; the last repeats).
type cron struct {
	t      *testing.T
	cfg    durable.Config
	exits  []int
	saved  []byte    // the state file; nil: none
	starts []string  // when attempts started, since t0
	log    []string  // one line per invocation
	t0     time.Time // the start of the bubble
}

func newCron(t *testing.T, cfg durable.Config, exits ...int) *cron {
	cfg.Identity, cfg.Command = id, []string{"job"}
	return &cron{t: t, cfg: cfg, exits: exits, t0: time.Now()}
}

func (c *cron) since() time.Duration { return time.Since(c.t0) }

// invoke is one invocation: what cmd's runDurable does, without files.
func (c *cron) invoke() durable.Verdict {
	c.t.Helper()
	var st *durable.State
	if c.saved != nil {
		var err error
		if st, err = durable.Decode(c.saved); err != nil {
			c.t.Fatalf("decode: %v\n%s", err, c.saved)
		}
	} else {
		st = durable.New(c.cfg)
	}
	st.Recover(c.cfg)
	now := time.Now()
	v := st.Check(now, c.cfg)
	if v != durable.RunNow {
		c.log = append(c.log, fmt.Sprintf("%v %s", c.since(), map[durable.Verdict]string{durable.NotDue: "not due", durable.Ended: "ended " + string(st.Status)}[v]))
		c.save(st)
		return v
	}
	previous := st.Previous()
	n := st.Begin(now, c.cfg, 42)
	c.save(st) // recorded before the attempt starts
	s := &runner.Strategy{MaxAttempts: c.cfg.MaxAttempts, MaxTime: c.cfg.MaxTime, Backoff: c.cfg.Backoff,
		Chain:  &acceptor.Chain{Fallback: acceptor.RunFallback},
		Resume: &runner.Resume{Attempt: n, Previous: previous, Start: st.Started}}
	out := s.Run(context.Background(), runner.SourceFunc(func(ctx context.Context, n, max int) *runner.Result {
		c.starts = append(c.starts, c.since().String())
		code := c.exits[min(n, len(c.exits))-1]
		return &runner.Result{Attempt: &acceptor.Attempt{ExitCode: code, Failed: code != 0}}
	}))
	last := out.Last()
	e := durable.EntryOf(last, fmt.Sprintf("exit status %d", last.Result.ExitCode))
	end := map[runner.End]durable.End{runner.EndSuccess: durable.Succeeded, runner.EndScheduled: durable.Scheduled,
		runner.EndFailure: durable.FailedEnd, runner.EndAttempts: durable.GaveUp, runner.EndDeadline: durable.GaveUp}[out.End]
	if st.Finish(time.Now(), e, end, last.Result.ExitCode, out.End.String()) {
		c.saved = nil
		c.log = append(c.log, fmt.Sprintf("%v attempt %d: success, state removed", c.since(), n))
		return v
	}
	c.log = append(c.log, fmt.Sprintf("%v attempt %d: %s, %s", c.since(), n, out.End, st.Status))
	c.save(st)
	return v
}

func (c *cron) save(st *durable.State) {
	b, err := durable.Encode(st)
	if err != nil {
		c.t.Fatal(err)
	}
	c.saved = b
}

func (c *cron) state() *durable.State {
	st, err := durable.Decode(c.saved)
	if err != nil {
		c.t.Fatal(err)
	}
	return st
}

func (c *cron) want(t *testing.T, want ...string) {
	t.Helper()
	if got := strings.Join(c.log, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("invocations:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func schedule(t *testing.T, s string) durable.Config {
	sc, err := backoff.ParseSchedule(s)
	if err != nil {
		t.Fatal(err)
	}
	return durable.Config{MaxAttempts: sc.Attempts, Backoff: sc.Backoff, Exits: durable.Exits{Deadline: 124, Unfinished: 137}}
}

// The delays double up to the max across invocations; a cron every 500ms
// finds attempts not due in between; success removes the state.
func TestDelaysDoubleAcrossInvocations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCron(t, schedule(t, "5 1s 2s"), 1, 1, 1, 1, 0)
		for range 16 {
			c.invoke()
			if c.saved == nil {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		if got, want := strings.Join(c.starts, " "), "0s 1s 3s 5s 7s"; got != want {
			t.Errorf("attempts started at %s, want %s", got, want)
		}
		c.want(t,
			"0s attempt 1: retry scheduled, pending",
			"500ms not due",
			"1s attempt 2: retry scheduled, pending",
			"1.5s not due", "2s not due", "2.5s not due",
			"3s attempt 3: retry scheduled, pending",
			"3.5s not due", "4s not due", "4.5s not due",
			"5s attempt 4: retry scheduled, pending",
			"5.5s not due", "6s not due", "6.5s not due",
			"7s attempt 5: success, state removed")
	})
}

// Exhaustion is sticky: later invocations end without an attempt, with the
// recorded exit status, until the state is reset.
func TestExhaustionIsSticky(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCron(t, schedule(t, "1 1s"), 3)
		for range 5 {
			c.invoke()
			time.Sleep(time.Second)
		}
		c.want(t,
			"0s attempt 1: retry scheduled, pending",
			"1s attempt 2: attempts exhausted, given up",
			"2s ended given up", "3s ended given up", "4s ended given up")
		st := c.state()
		if left, limited := st.Left(); st.Exit != 3 || st.Attempts != 2 || left != 0 || !limited || st.Shown(time.Now(), nil) != durable.GivenUp {
			t.Errorf("exit %d, attempts %d, left %d (limited %v), shown %s; want 3, 2, 0 (true), given up", st.Exit, st.Attempts, left, limited, st.Shown(time.Now(), nil))
		}
		// Reset: no file; the next invocation starts over.
		c.saved = nil
		c.starts = nil
		c.invoke()
		if len(c.starts) != 1 || c.state().Attempts != 1 {
			t.Errorf("after reset: starts %v, attempts %d; want one attempt", c.starts, c.state().Attempts)
		}
	})
}

// A failure directive is sticky.
func TestFailureIsSticky(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCron(t, schedule(t, "5 1s"), 1, 127)
		for range 4 {
			c.invoke()
			time.Sleep(time.Second)
		}
		c.want(t,
			"0s attempt 1: retry scheduled, pending",
			"1s attempt 2: failure, failed",
			"2s ended failed", "3s ended failed")
		if st := c.state(); st.Exit != 127 || st.Status != durable.Failed || st.NextDue != (time.Time{}) {
			t.Errorf("exit %d, status %s, next due %v", st.Exit, st.Status, st.NextDue)
		}
	})
}

// --max-time counts from the first attempt of the sequence: a delay that
// would end past it ends the sequence (124), and so does an invocation that
// comes after it.
func TestMaxTimeCountsFromTheFirstAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := schedule(t, "2s 4s")
		cfg.MaxTime = 5 * time.Second
		c := newCron(t, cfg, 1)
		for range 4 {
			c.invoke()
			time.Sleep(2 * time.Second)
		}
		c.want(t,
			"0s attempt 1: retry scheduled, pending",
			"2s attempt 2: time budget exceeded, given up",
			"4s ended given up", "6s ended given up")

		// A sequence whose next attempt was due before the deadline, but
		// no invocation came until after it.
		c = newCron(t, cfg, 1)
		c.invoke()
		time.Sleep(6 * time.Second)
		c.invoke()
		c.want(t, "0s attempt 1: retry scheduled, pending", "6s ended given up")
		if st := c.state(); st.Exit != 124 || !strings.Contains(st.Reason, "--max-time 5s since the first attempt") {
			t.Errorf("exit %d, reason %q", st.Exit, st.Reason)
		}
	})
}

// An attempt whose process died (kill -9) counts: the next one is due when
// Begin planned it, from the dead attempt's start; when it was the last
// allowed one, the sequence gives up with Exits.Unfinished.
func TestUnfinishedAttemptCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := schedule(t, "2 1s")
		cfg.Identity, cfg.Command = id, []string{"job"}
		st := durable.New(cfg)
		st.Begin(time.Now(), cfg, 42) // attempt 1, then the process dies
		time.Sleep(300 * time.Millisecond)
		b, _ := durable.Encode(st)
		st, err := durable.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Shown(time.Now(), func(int) bool { return true }); got != durable.Running {
			t.Errorf("shown %s while its process lives, want running", got)
		}
		if got := st.Shown(time.Now(), func(int) bool { return false }); got != durable.Pending {
			t.Errorf("shown %s once its process is gone, want pending", got)
		}
		if !st.Recover(cfg) {
			t.Fatal("Recover found nothing to recover")
		}
		if st.Status != durable.Pending || st.Attempts != 1 || st.History[0].Directive != durable.Unfinished {
			t.Fatalf("after Recover: %s, %d attempts, %q", st.Status, st.Attempts, st.History[0].Directive)
		}
		if v := st.Check(time.Now(), cfg); v != durable.NotDue {
			t.Errorf("300ms after the dead attempt: verdict %d, want not due", v)
		}
		time.Sleep(700 * time.Millisecond)
		if v := st.Check(time.Now(), cfg); v != durable.RunNow {
			t.Errorf("1s after the dead attempt: verdict %d, want due", v)
		}
		// Attempts 2 and 3 die too; 3 was the last allowed.
		st.Begin(time.Now(), cfg, 42)
		st.Recover(cfg)
		time.Sleep(2 * time.Second)
		st.Check(time.Now(), cfg)
		st.Begin(time.Now(), cfg, 42)
		if !st.Recover(cfg) || st.Status != durable.GivenUp || st.Exit != 137 || st.Attempts != 3 {
			t.Errorf("last attempt unfinished: %s, exit %d, %d attempts; want given up, 137, 3", st.Status, st.Exit, st.Attempts)
		}
		if st.Recover(cfg) {
			t.Error("Recover twice")
		}
	})
}

// A signal during an attempt counts it, as a crash does; the next attempt
// is due when Begin planned it.
func TestStoppedAttemptCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := schedule(t, "3 2s")
		cfg.Identity = id
		st := durable.New(cfg)
		t0 := time.Now()
		n := st.Begin(t0, cfg, 42)
		time.Sleep(500 * time.Millisecond)
		st.Finish(time.Now(), durable.Entry{Attempt: n, Start: t0, Duration: durable.Duration(500 * time.Millisecond), ExitCode: 143, Directive: "x"}, durable.Stopped, 143, "interrupted by SIGTERM")
		if st.Status != durable.Pending || !st.NextDue.Equal(t0.Add(2*time.Second)) || st.History[0].Directive != durable.Interrupted {
			t.Errorf("after a stopped attempt: %s, next due +%v, %q", st.Status, st.NextDue.Sub(t0), st.History[0].Directive)
		}
	})
}

// A lowered -n ends a sequence that already made that many attempts, with
// the exit status its last attempt would have given.
func TestLoweredLimitEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCron(t, schedule(t, "5 1s"), 4)
		c.invoke()
		time.Sleep(time.Second)
		c.invoke()
		c.cfg.MaxAttempts = 2
		time.Sleep(2 * time.Second)
		c.invoke()
		c.want(t, "0s attempt 1: retry scheduled, pending", "1s attempt 2: retry scheduled, pending", "3s ended given up")
		if st := c.state(); st.Exit != 4 || !strings.Contains(st.Reason, "2 of 2") {
			t.Errorf("exit %d, reason %q", st.Exit, st.Reason)
		}
	})
}

// The history keeps the latest MaxHistory attempts; the count goes on.
func TestHistoryIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := durable.Config{Identity: id}
		st := durable.New(cfg)
		for i := range durable.MaxHistory + 5 {
			n := st.Begin(time.Now(), cfg, 1)
			st.Finish(time.Now(), durable.Entry{Attempt: n, Start: time.Now(), ExitCode: 1, Directive: "retry (server-side)", Delay: durable.Duration(time.Second)}, durable.Scheduled, 1, "")
			if n != i+1 {
				t.Fatalf("attempt %d numbered %d", i+1, n)
			}
			time.Sleep(time.Second)
		}
		b, _ := durable.Encode(st)
		got, err := durable.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.History) != durable.MaxHistory || got.History[0].Attempt != 6 || got.Attempts != durable.MaxHistory+5 {
			t.Errorf("history of %d from attempt %d, %d attempts", len(got.History), got.History[0].Attempt, got.Attempts)
		}
	})
}

// No attempt starts at or past the deadline, not even one planned exactly
// at it: the invocation that comes then ends the sequence.
func TestNoAttemptAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := durable.Config{Identity: id, MaxTime: 5 * time.Second, Exits: durable.Exits{Deadline: 124}}
		st := durable.New(cfg)
		t0 := time.Now()
		n := st.Begin(t0, cfg, 1)
		st.Finish(t0.Add(2*time.Second), durable.Entry{Attempt: n, Start: t0, Directive: "retry (server-side)", ExitCode: -1, Delay: durable.Duration(3 * time.Second)}, durable.Scheduled, 124, "")
		time.Sleep(5 * time.Second)
		if v := st.Check(time.Now(), cfg); v != durable.Ended || st.Exit != 124 {
			t.Errorf("verdict %d, exit %d at the deadline, want %d, 124", v, st.Exit, durable.Ended)
		}
	})
}
