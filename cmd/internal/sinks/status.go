package sinks

import (
	"context"
	"fmt"
	"time"

	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/human"
)

// Sleep sleeps between attempts; on a terminal it shows a status line with
// the elapsed time, the attempt and the countdown, updated every 200ms, and
// clears it after.
func (l *Text) Sleep(ctx context.Context, d time.Duration) error {
	if !l.cfg.TTY || d < time.Second {
		return bucket.Sleep(ctx, d)
	}
	now := l.now
	end := now().Add(d)
	defer l.status("")
	for {
		left := end.Sub(now())
		if left <= 0 {
			return context.Cause(ctx)
		}
		label := human.Duration(now().Sub(l.start).Round(100*time.Millisecond)) + " elapsed"
		if l.last != nil {
			what := l.last.Decision.Directive.String()
			if human.NotYet(l.cfg.Wait, l.last) {
				what = human.Pending(l.last)
			}
			label += fmt.Sprintf(", %s: %s, %s", l.attemptLabel(l.last.Number), human.Result(l.last), what)
			if c := l.consecutive; c > 1 {
				label += fmt.Sprintf(", %d/%d in a row", l.last.Streak, c)
			}
		}
		l.status(fmt.Sprintf("%s; next attempt in %s", label, left.Round(100*time.Millisecond)))
		if err := bucket.Sleep(ctx, min(left, 200*time.Millisecond)); err != nil {
			return err
		}
	}
}

// status replaces the terminal's status line; "" clears it.
func (l *Text) status(s string) {
	l.lines.Lock()
	defer l.lines.Unlock()
	if s == "" {
		fmt.Fprint(l.lines.w, "\r\x1b[K")
		return
	}
	fmt.Fprintf(l.lines.w, "\r\x1b[Kretry: %s", echo.Untrusted(s)) // it repeats what attempts said
}
