package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/bucket"
)

// polls is a fake source: attempt n prints "state n" and fails (a poll not
// yet done), taking no time, except from attempt hangFrom on, which runs
// until it is stopped. It counts the releases of each attempt's stdout.
type polls struct {
	hangFrom int
	released map[int]int
}

func (p *polls) Attempt(ctx context.Context, n, _ int) *Result {
	release := func() { p.released[n]++ }
	if p.hangFrom > 0 && n >= p.hangFrom {
		err := bucket.Sleep(ctx, time.Hour)
		return &Result{Attempt: &acceptor.Attempt{ExitCode: 143, Failed: true}, Stopped: err, Release: release}
	}
	state := fmt.Sprintf("state %d", n)
	open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(state)), nil }
	return &Result{Attempt: &acceptor.Attempt{ExitCode: 1, Failed: true, Stdout: open}, Release: release}
}

// A poll the deadline stops midway leaves the last whole poll's stdout
// held (Outcome.Whole), and nothing else: every earlier attempt's stdout
// was released once, before the attempt after next began.
func TestKeepWholeDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &polls{hangFrom: 4, released: map[int]int{}}
		s := newStrategy(constant(time.Second))
		s.MaxAttempts, s.MaxTime, s.KeepWhole = 0, 10*time.Second, true
		out := s.Run(t.Context(), src)
		if out.End != EndDeadline || len(out.Attempts) != 4 {
			t.Fatalf("end %v after %d attempts, want the deadline during attempt 4", out.End, len(out.Attempts))
		}
		if !errors.Is(out.Last().Result.Stopped, ErrDeadline) {
			t.Fatalf("attempt 4 stopped by %v, want the deadline", out.Last().Result.Stopped)
		}
		w := out.Whole()
		if w == nil || w.Number != 3 || w.Result.Attempt.Stdout == nil {
			t.Fatalf("Whole() = %+v, want attempt 3 with its stdout", w)
		}
		if b, err := readAll(w.Result.Attempt); string(b) != "state 3" || err != nil {
			t.Errorf("attempt 3's stdout %q, %v; want state 3", b, err)
		}
		if fmt.Sprint(src.released) != "map[1:1 2:1]" {
			t.Errorf("released %v, want attempts 1 and 2 once each (3 held, 4 the caller's)", src.released)
		}
	})
}

// A run whose last attempt ended whole holds nothing: that attempt is the
// output, and the one before it was released.
func TestKeepWholeLastEndedWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &polls{released: map[int]int{}}
		s := newStrategy(constant(time.Second))
		s.MaxAttempts, s.KeepWhole = 3, true
		out := s.Run(t.Context(), src)
		if out.End != EndAttempts {
			t.Fatalf("end %v, want attempts exhausted", out.End)
		}
		if w := out.Whole(); w != nil {
			t.Errorf("Whole() = attempt %d, want none", w.Number)
		}
		if fmt.Sprint(src.released) != "map[1:1 2:1]" {
			t.Errorf("released %v, want attempts 1 and 2 once each", src.released)
		}
	})
}

// Without KeepWhole, a superseded attempt is released before the delay, as
// always, and a stopped last attempt has no whole one behind it.
func TestWithoutKeepWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &polls{hangFrom: 3, released: map[int]int{}}
		s := newStrategy(constant(time.Second))
		s.MaxAttempts, s.MaxTime = 0, 10*time.Second
		out := s.Run(t.Context(), src)
		if w := out.Whole(); out.End != EndDeadline || w != nil {
			t.Fatalf("end %v, Whole() %v; want the deadline and none", out.End, w)
		}
		if fmt.Sprint(src.released) != "map[1:1 2:1]" {
			t.Errorf("released %v, want attempts 1 and 2 once each", src.released)
		}
	})
}

func readAll(a *acceptor.Attempt) ([]byte, error) {
	rc, err := a.OpenStdout()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}
