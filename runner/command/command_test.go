//go:build linux

package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

func sh(script string) *Command { return &Command{Argv: []string{"/bin/sh", "-c", script}} }

func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	writeFile(filepath.Join(dir, "notexec"), "#!/bin/sh\necho hi\n")
	os.WriteFile(filepath.Join(dir, "badinterp"), []byte("#!/no/such/interpreter\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "garbage"), []byte("\x7fELF\x00\x01\x02 not really"), 0o755)
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	tests := []struct {
		name       string
		cmd        *Command
		code       int
		notStarted bool
		msg        string // the start error, when notStarted
	}{
		{name: "zero", cmd: sh("exit 0"), code: 0},
		{name: "code", cmd: sh("exit 3"), code: 3},
		{name: "255", cmd: sh("exit 255"), code: 255},
		{name: "SIGTERM", cmd: sh("kill -TERM $$"), code: 128 + 15},
		{name: "SIGKILL", cmd: sh("kill -KILL $$"), code: 128 + 9},
		{name: "SIGSEGV", cmd: sh("kill -SEGV $$"), code: 128 + 11},
		{name: "not found", cmd: &Command{Argv: []string{"no-such-command-xyz"}}, code: 127, notStarted: true,
			msg: "no-such-command-xyz: command not found"},
		{name: "empty name", cmd: &Command{Argv: []string{""}}, code: 127, notStarted: true, msg: ": command not found"},
		{name: "missing path", cmd: &Command{Argv: []string{filepath.Join(dir, "missing")}}, code: 127, notStarted: true,
			msg: filepath.Join(dir, "missing") + ": no such file or directory"},
		{name: "not executable", cmd: &Command{Argv: []string{filepath.Join(dir, "notexec")}}, code: 126, notStarted: true,
			msg: filepath.Join(dir, "notexec") + ": permission denied"},
		{name: "directory", cmd: &Command{Argv: []string{filepath.Join(dir, "adir")}}, code: 126, notStarted: true,
			msg: filepath.Join(dir, "adir") + ": is a directory"},
		{name: "relative to Dir", cmd: &Command{Argv: []string{"./adir"}, Dir: dir}, code: 126, notStarted: true,
			msg: "./adir: is a directory"},
		{name: "bad interpreter", cmd: &Command{Argv: []string{filepath.Join(dir, "badinterp")}}, code: 127, notStarted: true,
			msg: filepath.Join(dir, "badinterp") + ": /no/such/interpreter: bad interpreter: no such file or directory"},
		{name: "exec format", cmd: &Command{Argv: []string{filepath.Join(dir, "garbage")}}, code: 126, notStarted: true,
			msg: filepath.Join(dir, "garbage") + ": exec format error"},
		{name: "in PATH but not executable", cmd: &Command{Argv: []string{"notexec"}, Env: []string{"PATH=/nonexistent:" + dir}},
			code: 126, notStarted: true, msg: "notexec: permission denied"},
		{name: "missing Dir", cmd: &Command{Argv: []string{"/bin/true"}, Dir: filepath.Join(dir, "nodir")}, code: 126, notStarted: true,
			msg: "/bin/true: cannot change directory to " + filepath.Join(dir, "nodir") + ": no such file or directory"},
		{name: "empty argv", cmd: &Command{}, code: 127, notStarted: true, msg: ": command not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer tt.cmd.Close()
			r := tt.cmd.Attempt(t.Context(), 1, 1)
			if r.ExitCode != tt.code || r.NotStarted != tt.notStarted || r.Failed != (tt.code != 0) || r.Stopped != nil {
				t.Fatalf("ExitCode %d NotStarted %v Failed %v Stopped %v (err %v); want %d %v %v <nil>",
					r.ExitCode, r.NotStarted, r.Failed, r.Stopped, r.Err, tt.code, tt.notStarted, tt.code != 0)
			}
			if !tt.notStarted {
				if r.Err != nil {
					t.Fatalf("Err = %v", r.Err)
				}
				return
			}
			var se *StartError
			if !errors.As(r.Err, &se) || se.Code != tt.code {
				t.Fatalf("Err = %#v, want a *StartError with Code %d", r.Err, tt.code)
			}
			if r.Err.Error() != tt.msg {
				t.Errorf("Err = %q, want %q", r.Err, tt.msg)
			}
		})
	}
}

// A command attempt says so: it has an exit status when it ran or could not
// start, none when a done context skipped it.
func TestCommandAttemptKind(t *testing.T) {
	ran := sh("exit 3")
	defer ran.Close()
	r := ran.Attempt(t.Context(), 1, 1)
	if r.Kind != acceptor.CommandAttempt || !r.HasExitCode() || r.ExitCode != 3 || r.Skipped {
		t.Fatalf("ran: kind %v, has exit code %v, exit %d, skipped %v", r.Kind, r.HasExitCode(), r.ExitCode, r.Skipped)
	}
	missing := &Command{Argv: []string{"no-such-command-xyz"}}
	defer missing.Close()
	r = missing.Attempt(t.Context(), 1, 1)
	if r.Kind != acceptor.CommandAttempt || !r.HasExitCode() || r.ExitCode != 127 {
		t.Fatalf("not found: kind %v, has exit code %v, exit %d", r.Kind, r.HasExitCode(), r.ExitCode)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(runner.ErrDeadline)
	skipped := sh("exit 0")
	defer skipped.Close()
	r = skipped.Attempt(ctx, 1, 1)
	if r.Kind != acceptor.CommandAttempt || r.HasExitCode() || !r.Skipped || r.Stopped != runner.ErrDeadline {
		t.Fatalf("done context: kind %v, has exit code %v, skipped %v, stopped %v", r.Kind, r.HasExitCode(), r.Skipped, r.Stopped)
	}
}

// A command that cannot run fails at once: the run loop with the fallbacks
// of retry run makes one attempt of the five it may make, sleeps for no
// retry, and ends in failure with the status a shell gives (127 not found,
// 126 not executable) — whether the source could not start it or a shell
// (--shell) reported it.
func TestCannotRunFailsAtOnce(t *testing.T) {
	dir := t.TempDir()
	writeFile(filepath.Join(dir, "notexec"), "#!/bin/sh\necho hi\n")
	for _, tt := range []struct {
		name       string
		cmd        *Command
		code       int
		notStarted bool
	}{
		{"not found", &Command{Argv: []string{"no-such-command-xyz"}}, 127, true},
		{"missing path", &Command{Argv: []string{filepath.Join(dir, "missing")}}, 127, true},
		{"not found by the shell", sh("no-such-command-xyz"), 127, false},
		{"not executable", &Command{Argv: []string{filepath.Join(dir, "notexec")}}, 126, true},
		{"not executable by the shell", sh(filepath.Join(dir, "notexec")), 126, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer tt.cmd.Close()
			s := &runner.Strategy{MaxAttempts: 5, Chain: &acceptor.Chain{Fallback: acceptor.RunFallback},
				Backoff: backoff.Func(func(backoff.Step, backoff.Rand) time.Duration { return 0 }),
				Sleep: func(_ context.Context, d time.Duration) error {
					t.Errorf("slept %v before a retry", d)
					return nil
				}}
			out := s.Run(t.Context(), tt.cmd)
			if out.End != runner.EndFailure || len(out.Attempts) != 1 {
				t.Fatalf("End %v after %d attempts, want %v after 1", out.End, len(out.Attempts), runner.EndFailure)
			}
			last := out.Last()
			if a := last.Result.Attempt; a.ExitCode != tt.code || a.NotStarted != tt.notStarted || last.Decision.Directive != acceptor.Fail || last.Retried {
				t.Errorf("exit %d, not started %v, directive %v, retried %v; want %d, %v, %v, false",
					a.ExitCode, a.NotStarted, last.Decision.Directive, last.Retried, tt.code, tt.notStarted, acceptor.Fail)
			}
		})
	}
}

func TestNotFoundIsErrCommandNotFound(t *testing.T) {
	c := &Command{Argv: []string{"no-such-command-xyz"}}
	defer c.Close()
	if r := c.Attempt(t.Context(), 1, 1); !errors.Is(r.Err, ErrCommandNotFound) {
		t.Fatalf("Err = %v, want ErrCommandNotFound", r.Err)
	}
}

func TestPathLookupEachAttempt(t *testing.T) {
	// The command appears in PATH between attempts: found at the second.
	dir := t.TempDir()
	c := &Command{Argv: []string{"later-cmd"}, Env: []string{"PATH=" + dir}}
	defer c.Close()
	if r := c.Attempt(t.Context(), 1, 2); r.ExitCode != 127 {
		t.Fatalf("attempt 1: ExitCode %d, want 127", r.ExitCode)
	}
	os.WriteFile(filepath.Join(dir, "later-cmd"), []byte("#!/bin/sh\nexit 7\n"), 0o755)
	if r := c.Attempt(t.Context(), 2, 2); r.ExitCode != 7 {
		t.Fatalf("attempt 2: ExitCode %d (%v), want 7", r.ExitCode, r.Err)
	}
}

func TestAttemptEnv(t *testing.T) {
	c := helper("env")
	c.Env = append(c.Env, "RETRY_ATTEMPT=99", "RETRY_MAX_ATTEMPTS=99")
	defer c.Close()
	for _, tt := range []struct{ n, max int }{{1, 3}, {2, 3}, {7, 0}} {
		r := c.Attempt(t.Context(), tt.n, tt.max)
		want := fmt.Sprintf("%d/%d\n", tt.n, tt.max)
		if got := string(readAll(t, r.Attempt)); got != want {
			t.Errorf("attempt %d of %d: child saw %q, want %q", tt.n, tt.max, got, want)
		}
		r.Release()
	}
}

func TestFinalStdoutSpillsByteExact(t *testing.T) {
	for _, threshold := range []int64{64 << 10, 0} { // 0: output.DefaultSpillThreshold
		t.Run(strconv.FormatInt(threshold, 10), func(t *testing.T) { testFinalStdoutSpills(t, threshold) })
	}
}

func testFinalStdoutSpills(t *testing.T, threshold int64) {
	const size = 3<<20 + 12345
	c := helper("gen", strconv.Itoa(size), "42")
	c.SpillThreshold = threshold
	c.Window = 1000
	c.TempDir = t.TempDir()
	defer c.Close()
	r := c.Attempt(t.Context(), 1, 1)
	if r.ExitCode != 0 {
		t.Fatalf("ExitCode %d: %s", r.ExitCode, r.StderrTail)
	}
	want := genBytes(size, 42)
	for range 2 { // readable more than once
		if got := readAll(t, r.Attempt); !bytes.Equal(got, want) {
			t.Fatalf("stdout: %d bytes, want %d, equal %v", len(got), len(want), bytes.Equal(got, want))
		}
	}
	if !bytes.Equal(r.StdoutTail, want[size-1000:]) {
		t.Errorf("StdoutTail is not the last 1000 bytes")
	}
	if string(r.StderrTail) != "gen done\n" {
		t.Errorf("StderrTail = %q", r.StderrTail)
	}
	// The spill file is unlinked at once: nothing in TempDir.
	if ents, _ := os.ReadDir(c.TempDir); len(ents) != 0 {
		t.Errorf("TempDir holds %d files", len(ents))
	}
	r.Release()
	if _, err := r.OpenStdout(); !errors.Is(err, output.ErrCaptureClosed) {
		t.Errorf("Open after Release: %v, want output.ErrCaptureClosed", err)
	}
}

func TestLiveStdout(t *testing.T) {
	const size = 5000
	want := genBytes(size, 7)
	for _, tt := range []struct {
		name   string
		window int
		keep   bool
		open   error
	}{
		{"fits the window", size, false, nil},
		{"larger than the window", 100, false, ErrStdoutNotKept},
		{"kept", 100, true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var live, errs bytes.Buffer
			c := helper("gen", strconv.Itoa(size), "7")
			c.Stdout, c.Stderr, c.Window, c.KeepStdout = &live, &errs, tt.window, tt.keep
			defer c.Close()
			r := c.Attempt(t.Context(), 1, 1)
			if !bytes.Equal(live.Bytes(), want) || errs.String() != "gen done\n" {
				t.Fatalf("live stdout %d bytes (equal %v), stderr %q", live.Len(), bytes.Equal(live.Bytes(), want), errs.String())
			}
			if !bytes.Equal(r.StdoutTail, want[size-tt.window:]) {
				t.Errorf("StdoutTail is not the last %d bytes", tt.window)
			}
			rc, err := r.OpenStdout()
			if !errors.Is(err, tt.open) {
				t.Fatalf("OpenStdout: %v, want %v", err, tt.open)
			}
			if err == nil {
				got, _ := io.ReadAll(rc)
				if !bytes.Equal(got, want) {
					t.Errorf("opened stdout: %d bytes, not the output", len(got))
				}
			}
			if r.Release != nil {
				r.Release()
			}
		})
	}
}

// failingWriter fails every write, like a closed pipe.
type failingWriter struct{ calls int }

func (w *failingWriter) Write(p []byte) (int, error) { w.calls++; return 0, syscall.EPIPE }

// A write error on the live stream (retry's stdout is a closed pipe) stops
// the attempt as a signal would: one write, then SIGTERM to the group, and
// Stopped says which stream broke.
func TestLiveWriteErrorStopsAttempt(t *testing.T) {
	w := &failingWriter{}
	c := helper("gen", strconv.Itoa(1<<20), "3")
	c.Stdout, c.KeepStdout = w, true
	defer c.Close()
	r := c.Attempt(t.Context(), 1, 1)
	var se *output.StreamError
	if !errors.As(r.Stopped, &se) || se.Stream != "stdout" || !se.BrokenPipe() || w.calls != 1 {
		t.Fatalf("Stopped %v, %d writes; want a broken pipe on stdout, 1 write", r.Stopped, w.calls)
	}
	if r.Release != nil {
		r.Release()
	}
}

func TestErrorCodeFromStderr(t *testing.T) {
	aws := "\nAn error occurred (ThrottlingException) when calling the DescribeStacks operation: Rate exceeded\n"
	tests := []struct {
		name    string
		text    string
		code    int
		pattern string
		want    string
	}{
		{"aws failed", aws, 255, "", "ThrottlingException"},
		{"aws but exit 0", aws, 0, "", ""},
		{"pattern first", aws + "E42 boom\n", 1, `^(E\d+) `, "E42"},
		{"pattern misses: built-ins", aws, 1, `^(E\d+) `, "ThrottlingException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs bytes.Buffer
			c := helper("stderr", tt.text, strconv.Itoa(tt.code))
			c.Stderr = &errs
			if tt.pattern != "" {
				c.ErrorPattern = regexp.MustCompile(tt.pattern)
			}
			defer c.Close()
			r := c.Attempt(t.Context(), 1, 1)
			if r.ErrorCode != tt.want {
				t.Errorf("ErrorCode = %q, want %q", r.ErrorCode, tt.want)
			}
			if errs.String() != tt.text || string(r.StderrTail) != tt.text {
				t.Errorf("stderr live %q, tail %q; want %q", errs.String(), r.StderrTail, tt.text)
			}
		})
	}
}

func TestParseErrorInjected(t *testing.T) {
	c := helper("stderr", "whatever", "1")
	c.ParseError = func(stderr []byte) (string, string) { return "Custom", string(stderr) }
	defer c.Close()
	r := c.Attempt(t.Context(), 1, 1)
	if r.ErrorCode != "Custom" || r.ErrorMessage != "whatever" {
		t.Errorf("ErrorCode %q ErrorMessage %q", r.ErrorCode, r.ErrorMessage)
	}
}

func TestAttemptAfterClose(t *testing.T) {
	c := sh("exit 0")
	c.Close()
	if r := c.Attempt(t.Context(), 1, 1); !r.NotStarted || r.Err == nil {
		t.Errorf("NotStarted %v Err %v after Close", r.NotStarted, r.Err)
	}
}

func TestStdinDevNullPassedThrough(t *testing.T) {
	// /dev/null is given to every attempt as is: nothing to record, and
	// each attempt reads EOF at once.
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	c := helper("readn", "-1", "0")
	c.Stdin = null
	defer c.Close()
	for n := 1; n <= 2; n++ {
		r := c.Attempt(t.Context(), n, 2)
		if got := readAll(t, r.Attempt); len(got) != 0 || r.ExitCode != 0 {
			t.Fatalf("attempt %d read %q, exit %d", n, got, r.ExitCode)
		}
		r.Release()
	}
	if st := c.state.stdin; st.mode != stdinNull || st.rec != nil || st.file != null || st.null {
		t.Errorf("stdin source: mode %d, recorder %v, given file %v, closed by Close %v; want mode %d and the given /dev/null, kept open", st.mode, st.rec != nil, st.file == null, st.null, stdinNull)
	}
}

func TestAwaitLeaderStartsPumpsOnlyForOutput(t *testing.T) {
	// A pump's goroutine starts when its pipe has something to read, or
	// when the pipe is still open once the leader exited; a pipe at EOF
	// with nothing read leaves its pump idle.
	tests := []struct {
		name           string
		script         string
		stdout, stderr bool // started
	}{
		{"silent", "exit 3", false, false},
		{"stderr only", "echo oops >&2; exit 1", false, true},
		{"stdout closed early, stderr later", "exec >&-; sleep 0.05; echo late >&2", false, true},
		{"leftover holds stdout", "exec 2>&-; sleep 5 & exit 0", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errs [2]int
			if err := pipeCloexec(&out); err != nil {
				t.Fatal(err)
			}
			if err := pipeCloexec(&errs); err != nil {
				t.Fatal(err)
			}
			null, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			defer null.Close()
			pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", tt.script}, &syscall.ProcAttr{
				Files: []uintptr{null.Fd(), uintptr(out[1]), uintptr(errs[1])},
				Sys:   &syscall.SysProcAttr{Setpgid: true},
			})
			syscall.Close(out[1])
			syscall.Close(errs[1])
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Kill(-pid, syscall.SIGKILL)
			var outBuf, errBuf []byte
			stdout := &pump{fd: out[0], buf: &outBuf, window: 64, done: make(chan struct{})}
			stderr := &pump{fd: errs[0], buf: &errBuf, window: 64, done: make(chan struct{})}
			awaitLeader(pid, leaderWatch{}, stdout, stderr)
			if _, err := waitLeader(pid, func() {}); err != nil {
				t.Fatal(err)
			}
			syscall.Kill(-pid, syscall.SIGKILL)
			for _, p := range []*pump{stdout, stderr} {
				if p.idle() {
					t.Errorf("a pump is left neither started nor at EOF")
				}
				p.finish(time.Second)
				p.close()
			}
			if stdout.started != tt.stdout || stderr.started != tt.stderr {
				t.Errorf("started: stdout %v, stderr %v; want %v, %v", stdout.started, stderr.started, tt.stdout, tt.stderr)
			}
			if (len(outBuf) > 0) != tt.stdout || (len(errBuf) > 0) != tt.stderr {
				t.Errorf("buffers made: stdout %v, stderr %v; want them for started pumps only", len(outBuf) > 0, len(errBuf) > 0)
			}
			if tt.stderr && !strings.HasSuffix(string(stderr.tailBytes()), "\n") {
				t.Errorf("stderr %q: not read to its end", stderr.tailBytes())
			}
		})
	}
}

// BenchmarkAttemptTrue is the overhead of one attempt of /bin/true.
// BenchmarkExecTrue is os/exec's Run of the same, for comparison, and
// BenchmarkExecTrueGroup os/exec set up as an attempt would need it: its own
// process group, Cancel sending SIGTERM to the group, WaitDelay, the
// death signal and the stdout and stderr pipes.
func BenchmarkAttemptTrue(b *testing.B) {
	c := &Command{Argv: []string{"/bin/true"}}
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r := c.Attempt(ctx, 1, 1)
		if r.ExitCode != 0 {
			b.Fatal(r.ExitCode, r.Err)
		}
		r.Release()
	}
}

func BenchmarkExecTrue(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecTrueGroup(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		cmd := exec.CommandContext(ctx, "/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
		cmd.WaitDelay = DefaultKillAfter
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
