package cmd

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/internal/testdir"
	"github.com/retry-dev/retry/runner"
)

// lockedBuffer is a bytes.Buffer that attempts' output goroutines and the
// log may write at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testIO returns streams of buffers, no terminal, and an environment of
// env alone ("KEY=value" each).
func testIO(env ...string) (*iostreams.IOStreams, *lockedBuffer, *lockedBuffer) {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	out, errOut := &lockedBuffer{}, &lockedBuffer{}
	ios := &iostreams.IOStreams{Out: out, ErrOut: errOut, Getenv: func(k string) string { return vars[k] }}
	return ios, out, errOut
}

// runArgs runs the command line args as Main does, in-process, and returns
// the exit status, stdout and stderr.
func runArgs(t *testing.T, ctx context.Context, proc *process, args ...string) (int, string, string) {
	t.Helper()
	ios, out, errOut := testIO()
	status := run(ctx, args, ios, proc)
	return status, out.String(), errOut.String()
}

// counter is a command (sh -c) that, in dir, adds one to the number in
// dir/count, sets $n to it, and then runs the shell code then.
func counter(dir, then string) []string {
	return []string{"sh", "-c", `cd "$1" && n=0; [ -e count ] && n=$(cat count); n=$((n+1)); echo $n > count; ` + then, "sh", dir}
}

// matchLines checks that s has one line per pattern, each matching the
// pattern of its index (anchored), and reports every line that does not.
func matchLines(t *testing.T, what, s string, patterns ...string) {
	t.Helper()
	got := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if s == "" {
		got = nil
	}
	if len(got) != len(patterns) {
		t.Fatalf("%s: %d lines, want %d:\n%s", what, len(got), len(patterns), s)
	}
	for i, p := range patterns {
		if !regexp.MustCompile("^(?:" + p + ")$").MatchString(got[i]) {
			t.Errorf("%s line %d: %q, want %q", what, i+1, got[i], p)
		}
	}
}

// TestRunSucceedsOnThirdAttempt: two failed attempts and a success: exit 0,
// a log line per failed attempt with its stdout, the end line, and only the
// last attempt's stdout on stdout (not a terminal: final mode).
func TestRunSucceedsOnThirdAttempt(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	ios, out, errOut := testIO()
	args := append([]string{"-n", "5", "-d", "0", "--"}, counter(dir, `echo "out $n"; echo "err $n" >&2; [ $n -ge 3 ]`)...)
	p := parsePlan(t, false, ios, args...)
	outcome, err := runRetry(context.Background(), p, nil)
	errorLine(ios, err)
	if status := exitStatus(err); status != 0 {
		t.Fatalf("exit status %d, want 0; stderr:\n%s", status, errOut)
	}
	if outcome == nil || outcome.End != runner.EndSuccess || len(outcome.Attempts) != 3 {
		t.Fatalf("outcome %+v, want a success in 3 attempts", outcome)
	}
	if got := out.String(); got != "out 3\n" {
		t.Errorf("stdout %q, want the last attempt's %q", got, "out 3\n")
	}
	matchLines(t, "stderr", errOut.String(),
		`err 1`,
		`retry: stdout of attempt 1/5:`,
		`out 1`,
		`retry: attempt 1/5: exit status 1: retry \(server-side\) \[no acceptor matched\]; next attempt in 0s`,
		`err 2`,
		`retry: stdout of attempt 2/5:`,
		`out 2`,
		`retry: attempt 2/5: exit status 1: retry \(server-side\) \[no acceptor matched\]; next attempt in 0s`,
		`err 3`,
		`retry: succeeded on attempt 3 after \S+`,
	)
	if b, _ := os.ReadFile(filepath.Join(dir, "count")); string(b) != "3\n" {
		t.Errorf("count file %q, want 3 attempts", b)
	}
}

// parsePlan parses args as run's (wait's) flags and arguments, with the
// environment of ios, and builds the plan, as the command does before
// runRetry.
func parsePlan(t *testing.T, wait bool, ios *iostreams.IOStreams, args ...string) *plan.Plan {
	t.Helper()
	o := plan.NewRun(ios)
	if wait {
		o = plan.NewWait(ios)
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	o.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	p, err := o.Plan(fs, fs.Args(), false)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return p
}

// TestUsageErrorRunsNothing: flags that are refused exit 125 with one line
// that names the flag, nothing on stdout, and no attempt made.
func TestUsageErrorRunsNothing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"run", "--max-delay", "1s", "-d", "2s", "CMD"}, `retry: --max-delay 1s is below --delay 2s: the cap must be at least the base delay`},
		{[]string{"run", "--jitter", "some", "CMD"}, `retry: --jitter: "some": .*`},
		{[]string{"run", "--url", "http://127.0.0.1:9/", "--shell"}, `retry: --shell: runs a command; it cannot go with --url`},
		{[]string{"run", "--url", "http://127.0.0.1:9/", "--foreground"}, `retry: --shell and --foreground run commands; they cannot go with --url`},
		{[]string{"run", "--data", "x", "CMD"}, `retry: --data: only for HTTP calls: give --url URL`},
		{[]string{"run", "--tcp", "127.0.0.1:9", "--shell"}, `retry: --shell and --foreground run commands; they cannot go with --tcp`},
		{[]string{"wait", "--output", "text", "--success", "a=b", "CMD"}, `retry: --output: chooses how --query writes its result; give --query EXPR`},
		{[]string{"run", "--state", "s.json", "--consecutive", "2", "CMD"}, `retry: --consecutive: cannot go with --state, which makes one attempt per invocation`},
	} {
		t.Run(strings.Join(c.args[:3], " "), func(t *testing.T) {
			t.Parallel()
			dir := testdir.New(t)
			proc := &process{adoptOrphans: func() error { t.Error("the subreaper was switched on for a refused command line"); return nil }}
			var args []string
			for _, a := range c.args {
				if a == "CMD" {
					args = append(args, counter(dir, "true")...)
					continue
				}
				args = append(args, a)
			}
			status, stdout, stderr := runArgs(t, context.Background(), proc, args...)
			if status != exit.Usage {
				t.Errorf("exit status %d, want %d", status, exit.Usage)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want none", stdout)
			}
			matchLines(t, "stderr", stderr, c.line)
			if _, err := os.Stat(filepath.Join(dir, "count")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the command ran (%v)", err)
			}
		})
	}
}

// TestRunURLRetriesServerError: an HTTP call answered 503 is retried; the
// 200 that follows is the success, its body the output, and the failed
// call's body goes to stderr.
func TestRunURLRetriesServerError(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("fine\n"))
	}))
	defer srv.Close()
	proc := &process{adoptOrphans: func() error { t.Error("the subreaper was switched on for HTTP calls"); return nil }}
	status, stdout, stderr := runArgs(t, context.Background(), proc, "run", "-n", "3", "-d", "0", "--url", srv.URL)
	if status != 0 {
		t.Fatalf("exit status %d, want 0; stderr:\n%s", status, stderr)
	}
	if stdout != "fine\n" {
		t.Errorf("stdout %q, want the 200's body", stdout)
	}
	matchLines(t, "stderr", stderr,
		`retry: body of attempt 1/3:`,
		`busy`,
		`retry: attempt 1/3: HTTP 503: retry \(server-side\) \[no acceptor matched\]; next attempt in 0s`,
		`retry: succeeded on attempt 2 after \S+`,
	)
	if n := calls.Load(); n != 2 {
		t.Errorf("%d calls, want 2", n)
	}
}

// TestWaitReadsJSONFromCommand: wait polls a command until its JSON output
// matches the success acceptor, and writes that output.
func TestWaitReadsJSONFromCommand(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	args := append([]string{"wait", "-d", "0", "-n", "5", "--success", "status=ready"},
		counter(dir, `if [ $n -ge 3 ]; then echo '{"status":"ready","n":'$n'}'; else echo '{"status":"pending"}'; fi`)...)
	status, stdout, stderr := runArgs(t, context.Background(), nil, args...)
	if status != 0 {
		t.Fatalf("exit status %d, want 0; stderr:\n%s", status, stderr)
	}
	if stdout != `{"status":"ready","n":3}`+"\n" {
		t.Errorf("stdout %q, want the third attempt's JSON", stdout)
	}
	matchLines(t, "stderr", stderr,
		`retry: attempt 1/5: .*`,
		`retry: attempt 2/5: .*`,
		`retry: succeeded on attempt 3 after \S+`,
	)
}

// TestCancelStopsTheAttempt: a run whose context is cancelled with an
// Interrupt stops the attempt it is in, makes no other, and exits as retry
// does on that signal (128+N).
func TestCancelStopsTheAttempt(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "count")); err == nil {
				cancel(&runner.Interrupt{Signal: syscall.SIGTERM})
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	ios, out, errOut := testIO()
	p := parsePlan(t, false, ios, append([]string{"-n", "0", "-d", "0", "--kill-after", "1s", "--"}, counter(dir, "exec sleep 30")...)...)
	start := time.Now()
	outcome, err := runRetry(ctx, p, nil)
	errorLine(ios, err)
	if status := exitStatus(err); status != 128+int(syscall.SIGTERM) {
		t.Errorf("exit status %d, want %d", status, 128+int(syscall.SIGTERM))
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the run took %s: the attempt was not stopped", el)
	}
	if outcome == nil || outcome.End != runner.EndInterrupted || len(outcome.Attempts) != 1 {
		t.Fatalf("outcome %+v, want interrupted during attempt 1", outcome)
	}
	if out.String() != "" {
		t.Errorf("stdout %q, want none", out)
	}
	matchLines(t, "stderr", errOut.String(), `retry: interrupted by SIGTERM during attempt 1 after \S+.*`)
}

// TestSubreaperOnlyForCommands: the process's subreaper switch is made by
// a valid run of a command, once, and never while the plan is built.
func TestSubreaperOnlyForCommands(t *testing.T) {
	t.Parallel()
	var switched atomic.Int32
	proc := &process{adoptOrphans: func() error { switched.Add(1); return nil }}
	ios, _, _ := testIO()
	p := parsePlan(t, false, ios, "-n", "1", "--", "true")
	p.Close()
	if n := switched.Load(); n != 0 {
		t.Fatalf("building the plan switched the subreaper on (%d)", n)
	}
	if status, _, stderr := runArgs(t, context.Background(), proc, "run", "-n", "1", "--", "true"); status != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", status, stderr)
	}
	if n := switched.Load(); n != 1 {
		t.Errorf("subreaper switched on %d times by a run, want once", n)
	}
}

// TestStreamsReachTheAttempts: with stdout a terminal, run writes every
// attempt's stdout as it comes (live); a stdin that is a file (here a pipe)
// is what the attempts read, the first as it comes and the second replayed.
func TestStreamsReachTheAttempts(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write([]byte("payload\n"))
		w.Close()
	}()
	ios, out, errOut := testIO()
	ios.In, ios.StdoutIsTerminal = r, true
	p := parsePlan(t, false, ios, append([]string{"-n", "3", "-d", "0", "--"}, counter(dir, `read line; echo "$n $line"; [ $n -ge 2 ]`)...)...)
	_, err = runRetry(context.Background(), p, nil)
	errorLine(ios, err)
	if status := exitStatus(err); status != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", status, errOut)
	}
	if got, want := out.String(), "1 payload\n2 payload\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	matchLines(t, "stderr", errOut.String(),
		`retry: attempt 1/3: exit status 1: retry \(server-side\) \[no acceptor matched\]; next attempt in 0s`,
		`retry: succeeded on attempt 2 after \S+`,
	)
}

// TestRefusedRunLeavesLogFile: a command line refused after --log-file is
// read leaves the log file as it was.
func TestRefusedRunLeavesLogFile(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	logFile := filepath.Join(dir, "retry.log")
	if err := os.WriteFile(logFile, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", "--log-file", logFile, "--report", filepath.Join(dir, "no", "report.json")}, counter(dir, "true")...)
	status, stdout, stderr := runArgs(t, context.Background(), nil, args...)
	if status != exit.Usage || stdout != "" {
		t.Errorf("exit status %d, stdout %q; want %d and none", status, stdout, exit.Usage)
	}
	matchLines(t, "stderr", stderr, `retry: --report: cannot write report.json in .*`)
	if b, err := os.ReadFile(logFile); string(b) != "kept\n" {
		t.Errorf("log file %q (%v), want it untouched", b, err)
	}
}

// TestEnvironmentComesFromIOStreams: RETRY_<FLAG> defaults and the CI
// system's variables are read from the streams' environment, and a stderr
// that is a terminal turns --ci auto's markup off.
func TestEnvironmentComesFromIOStreams(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{false, true} {
		dir := testdir.New(t)
		ios, _, errOut := testIO("RETRY_ATTEMPTS=2", "RETRY_DELAY=0", "GITHUB_ACTIONS=true")
		ios.StderrIsTerminal = tty
		status := run(context.Background(), append([]string{"run"}, counter(dir, "exit 3")...), ios, nil)
		if status != 3 {
			t.Errorf("tty %v: exit status %d, want the command's 3", tty, status)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "count")); string(b) != "2\n" {
			t.Errorf("tty %v: count %q, want RETRY_ATTEMPTS=2 attempts", tty, b)
		}
		if got := strings.HasPrefix(errOut.String(), "::group::attempt 1/2\n"); got == tty {
			t.Errorf("tty %v: GitHub markup %v, want %v:\n%s", tty, got, !tty, errOut)
		}
	}
}
