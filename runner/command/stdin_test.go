//go:build linux

package command

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/retry-dev/retry/runner"
)

// pipeStdin returns the read end of a pipe that gets data and is then
// closed, as `producer | retry run …` gives it.
func pipeStdin(t *testing.T, data []byte) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(data)
		w.Close()
	}()
	t.Cleanup(func() { r.Close() })
	return r
}

func TestStdinReplayByteExact(t *testing.T) {
	// Attempt 1 reads half, attempt 2 reads everything (further than the
	// recording, from the real stdin), attempt 3 reads everything again
	// (from the recording alone), and 4 reads a little.
	const size = 300_000
	data := genBytes(size, 11)
	for _, spill := range []int64{0, 1000} {
		t.Run("spill="+strconv.FormatInt(spill, 10), func(t *testing.T) {
			c := helper("readn", "0")
			c.Stdin = pipeStdin(t, data)
			c.SpillThreshold = spill
			c.TempDir = t.TempDir()
			defer c.Close()
			for i, n := range []int{size / 2, -1, -1, 10} {
				c.Argv[1] = strconv.Itoa(n)
				r := c.Attempt(t.Context(), i+1, 4)
				want := data
				if n >= 0 {
					want = data[:n]
				}
				if got := readAll(t, r.Attempt); !bytes.Equal(got, want) {
					t.Fatalf("attempt %d read %d bytes, want the first %d, byte-exact", i+1, len(got), len(want))
				}
				r.Release()
			}
			if spilled := openSpills(t, c.TempDir) == 1; spilled != (spill > 0) {
				t.Errorf("recording spilled: %v, want %v", spilled, spill > 0)
			}
			if ents, _ := os.ReadDir(c.TempDir); len(ents) != 0 {
				t.Errorf("TempDir holds %d files", len(ents))
			}
		})
	}
}

// openSpills counts the spill files this process holds open in dir. They
// are unlinked as soon as they are made, so only /proc/self/fd still names
// them.
func openSpills(t *testing.T, dir string) int {
	t.Helper()
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, filepath.Join(dir, "retry-capture-")) {
			n++
		}
	}
	return n
}

func TestStdinNotReadDoesNotHang(t *testing.T) {
	// The real stdin never ends and holds more than a pipe buffer; the
	// command does not read it.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	go w.Write(make([]byte, 1<<20))
	c := &Command{Argv: []string{"/bin/true"}, Stdin: r}
	defer c.Close()
	for n := 1; n <= 2; n++ {
		if res := c.Attempt(t.Context(), n, 2); res.ExitCode != 0 {
			t.Fatalf("attempt %d: ExitCode %d", n, res.ExitCode)
		}
	}
}

func TestStdinReadsOnDemand(t *testing.T) {
	// An endless producer, as `yes | retry run head -c 10`: the recording
	// and what was taken from the producer stay small.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var written atomic.Int64
	stop := make(chan struct{})
	go func() {
		chunk := bytes.Repeat([]byte("y\n"), 2048)
		for {
			select {
			case <-stop:
				w.Close()
				return
			default:
			}
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	defer func() { close(stop); r.Close() }()
	c := helper("readn", "10")
	c.Stdin = r
	defer c.Close()
	for n := 1; n <= 3; n++ {
		res := c.Attempt(t.Context(), n, 3)
		if got := string(readAll(t, res.Attempt)); got != "y\ny\ny\ny\ny\n" {
			t.Fatalf("attempt %d read %q", n, got)
		}
		res.Release()
	}
	rec := c.state.stdin.rec
	rec.mu.Lock()
	recorded := rec.rec.Size()
	rec.mu.Unlock()
	// Bounded by what the pipe to the child and one read can hold.
	if recorded > 256<<10 {
		t.Errorf("recorded %d bytes for attempts that read 10", recorded)
	}
	if recorded == 0 {
		t.Errorf("nothing recorded")
	}
}

func TestStdinEOFWhenExhausted(t *testing.T) {
	c := &Command{Argv: []string{"/bin/cat"}, Stdin: pipeStdin(t, []byte("abc"))}
	defer c.Close()
	for n := 1; n <= 2; n++ {
		res := c.Attempt(t.Context(), n, 2)
		if got := string(readAll(t, res.Attempt)); got != "abc" || res.ExitCode != 0 {
			t.Fatalf("attempt %d: %q, exit %d", n, got, res.ExitCode)
		}
		res.Release()
	}
}

func TestStdinNilIsDevNull(t *testing.T) {
	c := &Command{Argv: []string{"/bin/cat"}}
	defer c.Close()
	res := c.Attempt(t.Context(), 1, 1)
	if got := readAll(t, res.Attempt); len(got) != 0 || res.ExitCode != 0 {
		t.Fatalf("cat read %q, exit %d", got, res.ExitCode)
	}
}

func TestStdinRegularFileFromItsOffset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in")
	os.WriteFile(path, []byte("skip:the rest\n"), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Seek(5, 0) // retry's caller already read "skip:"
	c := &Command{Argv: []string{"/bin/sh", "-c", "head -c 3; [ $RETRY_ATTEMPT -gt 1 ] && cat"}, Stdin: f}
	defer c.Close()
	for n, want := range []string{"the", "the rest\n", "the rest\n"} {
		res := c.Attempt(t.Context(), n+1, 3)
		if got := string(readAll(t, res.Attempt)); got != want {
			t.Errorf("attempt %d read %q, want %q", n+1, got, want)
		}
		res.Release()
	}
	if c.state.stdin.mode != stdinSeek {
		t.Errorf("mode %v, want stdinSeek", c.state.stdin.mode)
	}
}

func TestStdinRecorderCloseWhileReading(t *testing.T) {
	// Close returns although the reader goroutine is blocked on a stdin that
	// never yields.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	ready := filepath.Join(t.TempDir(), "ready")
	c := &Command{Argv: []string{"/bin/sh", "-c", `touch "$0"; exec cat`, ready}, Stdin: r}
	ctx, cancel := context.WithCancelCause(t.Context())
	done := make(chan *runner.Result)
	go func() { done <- c.Attempt(ctx, 1, 1) }()
	// cat blocks on its stdin, and the recorder on ours: stop the attempt.
	waitFile(t, ready)
	cancel(runner.ErrAttemptTimeout)
	res := <-done
	if res.ExitCode != 128+15 {
		t.Errorf("ExitCode %d, want 143", res.ExitCode)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// openPTY returns a pseudo-terminal's controller and its terminal end.
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skip(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skip(err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { tty.Close() })
	return ptmx, tty
}

func TestStdinTerminal(t *testing.T) {
	// In its own process group, a command reading the terminal would be
	// stopped (SIGTTIN): it reads /dev/null instead. With Foreground it
	// gets the terminal.
	_, tty := openPTY(t)
	c := &Command{Argv: []string{"/bin/cat"}, Stdin: tty}
	defer c.Close()
	res := c.Attempt(t.Context(), 1, 1)
	if got := readAll(t, res.Attempt); len(got) != 0 || res.ExitCode != 0 {
		t.Fatalf("cat read %q, exit %d", got, res.ExitCode)
	}
	if c.state.stdin.mode != stdinNull {
		t.Errorf("mode %v, want stdinNull", c.state.stdin.mode)
	}
	fg := &Command{Argv: []string{"/bin/true"}, Stdin: tty, Foreground: true}
	defer fg.Close()
	fg.Attempt(t.Context(), 1, 1)
	if fg.state.stdin.mode != stdinInherit {
		t.Errorf("Foreground: mode %v, want stdinInherit", fg.state.stdin.mode)
	}
}
