package command

import (
	"strconv"
	"testing"
	"testing/synctest"
	"time"
)

// The supervisor's bound (FenceRun): the run's processes are killed when
// it passes, not before; a later bound moves it, 0 lifts it; retry gone
// kills at once; goodbye kills nothing. The clock is synctest's.
func TestSupervisorBound(t *testing.T) {
	at := func(d time.Duration) string { return "@" + strconv.FormatInt(time.Now().Add(d).UnixNano(), 10) }
	now := func() int64 { return time.Now().UnixNano() }
	synctest.Test(t, func(t *testing.T) {
		lines := make(chan string)
		kills := make(chan time.Time, 10)
		start := time.Now()
		groups := map[int]bool{}
		done := make(chan struct{})
		go func() {
			supervise(lines, now, func() { kills <- time.Now() }, groups)
			close(done)
		}()
		expect := func(when time.Duration) {
			t.Helper()
			select {
			case k := <-kills:
				if got := k.Sub(start); got != when {
					t.Fatalf("killed at %v, want %v", got, when)
				}
			default:
				t.Fatalf("not killed at %v", time.Since(start))
			}
		}
		none := func() {
			t.Helper()
			select {
			case k := <-kills:
				t.Fatalf("killed at %v, want no kill", k.Sub(start))
			default:
			}
		}

		lines <- "+42"
		lines <- at(5 * time.Second)
		time.Sleep(5*time.Second - time.Nanosecond)
		synctest.Wait()
		none()
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		expect(5 * time.Second)
		if !groups[42] {
			t.Error("the group told is not the supervisor's")
		}

		// Renewed before it passes: moved.
		lines <- at(10 * time.Second) // at 5s: until 15s
		time.Sleep(8 * time.Second)   // 13s
		lines <- at(10 * time.Second) // until 23s
		time.Sleep(9 * time.Second)   // 22s
		synctest.Wait()
		none()
		time.Sleep(time.Second)
		synctest.Wait()
		expect(23 * time.Second)

		// Lifted: never.
		lines <- at(time.Second)
		lines <- "@0"
		time.Sleep(time.Hour)
		synctest.Wait()
		none()

		// A bound already past kills at once.
		lines <- at(-time.Second)
		synctest.Wait()
		expect(time.Hour + 23*time.Second)

		// Retry gone: killed, and the supervisor ends.
		lines <- at(time.Minute)
		close(lines)
		<-done
		expect(time.Hour + 23*time.Second)
		none()
	})
}

// Goodbye ends the supervisor without a kill, whatever the bound.
func TestSupervisorGoodbye(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lines := make(chan string)
		killed := false
		done := make(chan struct{})
		go func() {
			supervise(lines, func() int64 { return time.Now().UnixNano() }, func() { killed = true }, map[int]bool{})
			close(done)
		}()
		lines <- "@" + strconv.FormatInt(time.Now().Add(time.Second).UnixNano(), 10)
		lines <- "q"
		<-done
		time.Sleep(time.Minute)
		if killed {
			t.Error("killed after goodbye")
		}
	})
}
