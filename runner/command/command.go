// Package command is the attempt source that runs a command, one process
// group per attempt: starting it (a lookPath that searches the child's PATH),
// its stdin (passed through, or recorded and replayed to later attempts), its
// output (passed through live, kept whole, bounded), stopping it (the stop
// signal, a grace, SIGKILL) and reaping all it left behind (the process
// group, and as a child subreaper the processes that escaped it). Hook runs
// the --on-retry command the same way. It implements runner.Source and
// imports acceptor (the attempt), acceptor/errorcode (error codes in
// stderr), runner (the Result it returns, the causes of a stopped attempt,
// the Record a hook sees) and runner/output; runner does not import it.
//
// It builds on Unix only, as retry does (its releases are for Linux, macOS
// and FreeBSD): process groups, signals and the shell's exit statuses are
// Unix designs, and a Windows stub that failed every attempt never compiled.
package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/errorcode"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// Defaults of a Command's zero-valued fields.
const (
	// DefaultKillAfter is the grace between the stop signal and SIGKILL.
	DefaultKillAfter = 5 * time.Second
)

// pipeDrain is how long an attempt still reads its stdout and stderr after
// all its processes are gone. Only a process that escaped the attempt (a
// daemon that left the process group while retry is not a subreaper) can
// hold the pipes longer; the attempt does not wait for it.
const pipeDrain = 200 * time.Millisecond

// RunIDVar is the variable that marks the processes of a run, once
// EnableSupervisor is on: every attempt and hook gets the ids of the retry
// runs it runs under, separated by spaces, the innermost last (an inherited
// value is kept: a retry inside an attempt of another). Sweeps and the
// supervisor find the run's processes by it, wherever they moved.
const RunIDVar = "RETRY_RUN_ID"

// runID returns this process's run id: its pid and the time it was first
// asked for. A sync.Once and a function, not a sync.OnceValue variable,
// whose closure package initialisation would build at every start.
func runID() string {
	runIDOnce.Do(func() {
		runIDValue = strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	})
	return runIDValue
}

var (
	runIDOnce  sync.Once
	runIDValue string
)

// ErrCommandNotFound is the StartError reason when argv[0] has no slash and
// is not in PATH.
var ErrCommandNotFound = errors.New("command not found")

// ErrStdoutNotKept is returned when opening the stdout of a live-mode
// attempt that wrote more than the tail window without KeepStdout.
var ErrStdoutNotKept = errors.New("stdout was written live and not kept (it is larger than the output window)")

// StartError is why a command could not be started. Error reads like a
// shell's message ("NAME: command not found"); the CLI prefixes "retry: ".
type StartError struct {
	// Name is argv[0] as given.
	Name string
	// Err is ErrCommandNotFound, or a syscall.Errno (ENOENT, EACCES, EISDIR,
	// ENOEXEC, …), possibly wrapped with detail (a bad interpreter, a
	// working directory that cannot be entered).
	Err error
	// Code is the exit status a shell would give: 127 when the command, or
	// the interpreter its #! line names, does not exist; 126 when it exists
	// but cannot be executed.
	Code int
}

func (e *StartError) Error() string { return e.Name + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *StartError) Unwrap() error { return e.Err }

// Command is the Source that runs a command, one process per attempt.
//
// Processes: each attempt runs in its own process group (unless
// Foreground). When the attempt's context is done, the group gets the
// signal of an *Interrupt cause, or SIGTERM for any other cause (the attempt
// timeout, the deadline), then SIGCONT, and SIGKILL after KillAfter;
// Result.Stopped records the cause. When the command exits by itself, what
// it left running in its group gets SIGTERM, then SIGKILL after KillAfter.
// When retry is a child subreaper (EnableSubreaper), processes that escaped
// the group (setsid, double fork) are reparented to retry and are found and
// stopped the same way. Everything is reaped before Attempt returns.
//
// Exit status, as a shell maps it: the exit code; 128+N when the command
// died of signal N; 127 when it is not found; 126 when it cannot be
// executed. Failed is set for a non-zero status or a start failure.
//
// Output: stderr passes through to Stderr as it comes and its last Window
// bytes are kept for error-code parsing and output acceptors. With Stdout
// set (live mode) stdout passes through too; with Stdout nil (final mode)
// the whole stdout is kept byte-exact, in memory up to SpillThreshold and in
// a temporary file beyond, until Result.Release. Stdout and Stderr are
// written from different goroutines.
//
// A Command runs one attempt at a time; Attempt must not be called
// concurrently. Close it after the last attempt.
type Command struct {
	// Argv is the command and its arguments. argv[0] without a slash is
	// looked up in the PATH of Env at each start, with a relative PATH entry
	// taken from Dir.
	Argv []string
	// Env is the environment; nil means os.Environ(). Every attempt also
	// gets RETRY_ATTEMPT (1-based) and RETRY_MAX_ATTEMPTS (0 when
	// unlimited), replacing any inherited values.
	Env []string
	// Dir is the working directory; "" is retry's own.
	Dir string
	// Foreground keeps the command in retry's process group, for
	// interactive commands: signals then go to the command alone, and the
	// processes it leaves behind are only found when retry is a subreaper.
	Foreground bool
	// SuperviseEarly starts the supervisor (EnableSupervisor) before the
	// first attempt's process, instead of once an attempt has run
	// supervisorAfter: then no process an attempt starts in its first
	// moments outlives a retry killed with SIGKILL either, for the price of
	// one more process per run.
	SuperviseEarly bool
	// KillAfter is the grace between the stop signal and SIGKILL; 0 means
	// DefaultKillAfter and a negative value sends SIGKILL at once.
	KillAfter time.Duration

	// Stdin is what attempts read. nil or /dev/null: /dev/null. A terminal:
	// passed through with Foreground, else /dev/null (a background process
	// group that reads the terminal is stopped). A regular file: every attempt
	// reads it from the offset it had at the first attempt. Anything else
	// (a pipe): recorded as the first attempt reads it, and replayed
	// byte-exact to later attempts; an attempt that reads further than any
	// before continues from the real stdin, and the command reads EOF when
	// both are exhausted. The real stdin is read only as attempts consume
	// it (ahead by at most a pipe buffer and 32 KiB), and the recording
	// spills to a temporary file beyond SpillThreshold.
	Stdin *os.File
	// Stdout, when set, receives each attempt's stdout as it comes (live
	// mode); nil keeps the whole stdout instead (final mode). A write error
	// (a closed pipe) stops the copying; the command's stdout is still read.
	Stdout io.Writer
	// Stderr receives each attempt's stderr as it comes; nil discards it.
	Stderr io.Writer
	// MaxOutput bounds the output of an attempt, stdout and stderr
	// together, in bytes: an attempt that writes more is stopped and fails
	// with an *output.LimitError. 0 means no bound for live output and
	// output.DefaultMaxKeep for kept stdout.
	MaxOutput int64
	// MemoryFallback bounds the memory a stream kept whole may take when its
	// spill file cannot be created or written; 0 means
	// output.DefaultMemoryFallback. Beyond it the attempt is stopped with a
	// *output.StreamError, and the run ends: output is never silently cut.
	MemoryFallback int64
	// HeldFor, in final mode (Stdout nil), is retry's own stdout, to which
	// the kept stdout goes once the run ends. When it is a pipe or a
	// socket whose reader goes away (`retry run -- yes | head -c 0`), an
	// attempt that has written to its stdout, or writes to it later, is
	// stopped as on a closed pipe, with an *output.StreamError whose Err is
	// ErrReaderGone: its bytes can never be delivered. An attempt that
	// writes nothing to its stdout runs on, as it would with the pipe in
	// its own hands. nil watches nothing.
	HeldFor *os.File
	// KeepStdout also keeps the whole stdout in live mode, for acceptors
	// that parse it as JSON. Without it, a live attempt's stdout can be
	// opened only when it fits in the window (else ErrStdoutNotKept).
	KeepStdout bool

	// Window is the size of the tail window kept of each stream for output
	// acceptors and error codes; 0 means output.DefaultWindow.
	Window int
	// SpillThreshold is how much of stdout (and of the stdin recording) is
	// kept in memory before spilling to a temporary file; 0 means
	// output.DefaultSpillThreshold and a negative value spills at once.
	SpillThreshold int64
	// TempDir holds the spill files; "" is os.TempDir(). The files are
	// unlinked as soon as they are created.
	TempDir string

	// ErrorPattern, when set, finds the error code of a failed attempt in
	// its stderr window, as errorcode.ParseErrorPattern does (the first
	// capture group of the last matching line). It is tried before
	// ParseError.
	ErrorPattern *regexp.Regexp
	// ParseError parses the error code and message of a failed attempt from
	// its stderr window when ErrorPattern finds none; nil means
	// errorcode.ParseCommandError (AWS CLI, kubectl, gcloud, …).
	ParseError func(stderr []byte) (code, message string)

	current atomic.Pointer[process] // the running attempt, for Kill
	hook    bool                    // the --on-retry hook: Close leaves the supervisor

	once   sync.Once
	state  *commandState
	err    error
	closed bool
}

// commandState is what a Command sets up at its first attempt.
type commandState struct {
	env       []string // without RETRY_ATTEMPT and RETRY_MAX_ATTEMPTS
	path      string   // the PATH of env
	stdin     *stdinSource
	subreaper bool
	marked    bool         // attempts carry runID in RunIDVar (EnableSupervisor)
	pgid      int          // retry's own process group
	reader    *readerWatch // HeldFor's reader, nil when not watched
	outBuf    []byte       // the stdout pump's buffer, allocated when first needed
	errBuf    []byte       // the stderr pump's
	tailBuf   []byte       // the kept stdout's window, when it spans blocks
}

func (c *Command) killAfter() time.Duration {
	if c.KillAfter == 0 {
		return DefaultKillAfter
	}
	return c.KillAfter
}

func (c *Command) window() int {
	if c.Window <= 0 {
		return output.DefaultWindow
	}
	return c.Window
}

func (c *Command) memoryFallback() int64 {
	if c.MemoryFallback <= 0 {
		return output.DefaultMemoryFallback
	}
	return c.MemoryFallback
}

// Kill sends SIGKILL at once to the running attempt's process group (retry
// got a second signal during the grace). It reports whether an attempt was
// running. It may be called from any goroutine.
func (c *Command) Kill() bool {
	p := c.current.Load()
	return p != nil && p.killNow(errKilled)
}

// errKilled is the cause recorded when Kill is what stopped an attempt.
var errKilled = errors.New("killed")

func (c *Command) spillThreshold() int64 {
	switch {
	case c.SpillThreshold == 0:
		return output.DefaultSpillThreshold
	case c.SpillThreshold < 0:
		return 0
	}
	return c.SpillThreshold
}

// setup prepares the state shared by all attempts.
func (c *Command) setup() (*commandState, error) {
	c.once.Do(func() {
		env := c.Env
		if env == nil {
			env = os.Environ()
		}
		marked := supervisorEnabled()
		st := &commandState{
			env:       childEnv(env, marked),
			path:      "/usr/bin:/bin",
			subreaper: isSubreaper(),
			marked:    marked,
			pgid:      os.Getpid(),
		}
		if pg, err := getpgid(0); err == nil {
			st.pgid = pg
		}
		for _, kv := range st.env {
			if v, ok := pathOf(kv); ok {
				st.path = v
			}
		}
		st.stdin, c.err = newStdinSource(c.Stdin, c.Foreground, c.TempDir, c.spillThreshold(), c.memoryFallback())
		if c.Stdout == nil && c.err == nil {
			st.reader = watchReader(c.HeldFor)
		}
		c.state = st
	})
	return c.state, c.err
}

// childEnv returns env without duplicates (the last value wins, as os/exec
// does) and without RETRY_ATTEMPT and RETRY_MAX_ATTEMPTS, which each attempt
// sets. When marked, runID is appended to RunIDVar.
func childEnv(env []string, marked bool) []string {
	seen := make(map[string]bool, len(env))
	out := make([]string, 0, len(env)+3)
	inherited := ""
	for i := len(env) - 1; i >= 0; i-- {
		k, v, _ := strings.Cut(env[i], "=")
		if seen[k] || k == "RETRY_ATTEMPT" || k == "RETRY_MAX_ATTEMPTS" {
			continue
		}
		seen[k] = true
		if k == RunIDVar && marked {
			inherited = v
			continue
		}
		out = append(out, env[i])
	}
	slices.Reverse(out)
	if marked {
		out = append(out, RunIDVar+"="+strings.TrimSpace(inherited+" "+runID()))
	}
	return out
}

// attemptEnv returns the environment of attempt n of max.
func (st *commandState) attemptEnv(n, max int) []string {
	env := make([]string, len(st.env), len(st.env)+2)
	copy(env, st.env)
	return append(env, "RETRY_ATTEMPT="+strconv.Itoa(n), "RETRY_MAX_ATTEMPTS="+strconv.Itoa(max))
}

// Attempt runs attempt n of at most max (0: unlimited). It always returns a
// Result: a command that cannot start has NotStarted set, ExitCode 126 or
// 127 and Err a *StartError; a context already done when Attempt is called
// starts nothing (Skipped: no exit status) and returns its cause in Stopped
// and Err.
func (c *Command) Attempt(ctx context.Context, n, max int) *runner.Result {
	return c.attempt(ctx, n, max, nil)
}

// attempt is Attempt, with stdout to stream when set (AttemptStream).
func (c *Command) attempt(ctx context.Context, n, max int, stream io.Writer) *runner.Result {
	a := &acceptor.Attempt{Number: n, Kind: acceptor.CommandAttempt}
	res := &runner.Result{Attempt: a}
	if c.closed {
		return notStarted(res, &StartError{Name: c.name(), Err: errors.New("command closed"), Code: 126})
	}
	st, err := c.setup()
	switch {
	case err != nil:
		return notStarted(res, &StartError{Name: c.name(), Err: fmt.Errorf("stdin: %w", err), Code: 126})
	case ctx.Err() != nil:
		res.Stopped = context.Cause(ctx)
		a.Failed, a.Skipped, a.Err = true, true, res.Stopped
		return res
	case len(c.Argv) == 0:
		return notStarted(res, &StartError{Name: "", Err: ErrCommandNotFound, Code: 127})
	}
	path, serr := lookPath(c.Argv[0], st.path, c.Dir)
	if serr != nil {
		return notStarted(res, serr)
	}
	c.run(ctx, st, path, res, n, max, stream)
	// An attempt waits in system calls (fork, poll, waitid), never in the
	// scheduler, so attempts with no delay between them keep this
	// goroutine running for good: every 10 ms the runtime's monitor
	// (sysmon) then preempts it, and goes back to waking every 20 µs.
	// Passing through the scheduler once per attempt lets it sleep: 4% less
	// CPU per attempt of /bin/false with --delay 0 (bench/attempts.sh).
	runtime.Gosched()
	return res
}

func (c *Command) name() string {
	if len(c.Argv) == 0 {
		return ""
	}
	return c.Argv[0]
}

func notStarted(res *runner.Result, err *StartError) *runner.Result {
	res.Failed, res.NotStarted, res.ExitCode, res.Err = true, true, err.Code, err
	return res
}

// pump copies one of the command's output pipes to its destinations. Its
// goroutine starts when the pipe first has something to read (see
// awaitLeader): a command that writes nothing to a stream costs no
// goroutine, no *os.File and no poller registration for it.
type pump struct {
	name   string          // "stdout" or "stderr", for errors
	fd     int             // the pipe's read end
	r      *os.File        // fd as a non-blocking file, once started
	buf    *[]byte         // the read buffer, kept across attempts; made at start
	live   io.Writer       // nil after a write error
	keep   *output.Capture // the whole stream, or nil
	tail   ring            // the window, when keep is nil
	window int
	total  int64
	done   chan struct{}

	guard    *attemptGuard // the attempt's output limit and failures
	dropKeep bool          // keep holds a failure or went past its bound
	// wrote is set once the stream had a byte; reader, when set, is the
	// watch of the reader of retry's stdout, which the held stdout's first
	// byte is checked against (heldStdoutLost).
	wrote  atomic.Bool
	reader *readerWatch

	started bool // the goroutine runs (or ran)
	eof     bool // not started: the pipe is known to be at end of file
}

// idle reports whether the pump has neither started nor reached EOF.
func (p *pump) idle() bool { return !p.started && !p.eof }

func (p *pump) run() {
	defer close(p.done)
	buf := *p.buf
	rc, _ := p.r.SyscallConn()
	for {
		if max := p.spliceMax(); max > 0 && rc != nil {
			n, ok, err := p.keep.SpliceFrom(rc, max)
			if ok {
				if !p.spliced(n, err) {
					return
				}
				continue
			}
		}
		n, err := p.r.Read(buf)
		if n > 0 {
			p.take(buf[:n])
		}
		if err != nil {
			return // EOF, or the drain deadline passed
		}
	}
}

// spliceChunk is the most a pump moves with one splice(2) into a spill file.
const spliceChunk = 1 << 20

// spliceMax is how much the pump may move from its pipe straight into its
// kept stream's spill file (Capture.SpliceFrom), 0 when the bytes must pass
// through take: they go to a live destination too, the stream is not kept
// or is dropped, or a bound of the attempt is near (take then fails the
// attempt exactly as it would have).
func (p *pump) spliceMax() int {
	if p.keep == nil || p.live != nil || p.dropKeep {
		return 0
	}
	max := int64(spliceChunk)
	if g := p.guard; g != nil {
		if g.kept > 0 {
			max = min(max, g.kept-p.keep.Size())
		}
		if g.limit > 0 {
			max = min(max, g.limit-g.output.Load())
		}
	}
	return int(max)
}

// spliced accounts for n bytes moved into the spill file, or the error of
// the move, and reports whether the pipe is to be read on.
func (p *pump) spliced(n int, err error) bool {
	if n > 0 {
		p.total += int64(n)
		if p.guard != nil && !p.guard.count(n) {
			p.dropKeep = true
		}
		p.wrote.Store(true)
		heldStdoutLost(p.reader, p)
	}
	switch {
	case err != nil && p.keep.Err() != nil:
		// The spill file could not be written: the stream cannot be kept
		// whole. The pipe is still read to its end (take drops it).
		p.dropKeep = true
		if p.guard != nil {
			p.guard.fail(&output.StreamError{Stream: p.name, Keeping: true, Err: err})
		}
		return true
	case err != nil:
		return false // the drain deadline passed
	}
	return n > 0 // 0: the pipe is at its end
}

// take hands what was read to the pump's destinations. A write error on
// the live destination (a closed pipe, a full device) or a stream that cannot
// be kept whole fails the attempt through the guard, which stops it; the
// pipe is still read to its end so the command never blocks on it.
func (p *pump) take(b []byte) {
	p.total += int64(len(b))
	if p.reader != nil && !p.wrote.Load() {
		p.wrote.Store(true)
		heldStdoutLost(p.reader, p)
	}
	if p.guard != nil && !p.guard.count(len(b)) {
		p.live, p.dropKeep = nil, true
	}
	if p.live != nil {
		if _, werr := p.live.Write(b); werr != nil {
			p.live = nil
			if p.guard != nil {
				p.guard.fail(&output.StreamError{Stream: p.name, Err: werr})
			}
		}
	}
	switch {
	case p.keep == nil:
		p.tail.write(b, p.window)
	case p.dropKeep:
	case p.guard != nil && p.guard.kept > 0 && p.keep.Size()+int64(len(b)) > p.guard.kept:
		p.dropKeep = true
		p.guard.fail(&output.LimitError{Limit: p.guard.kept, Kept: true})
	default:
		if _, err := p.keep.Write(b); err != nil {
			p.dropKeep = true
			if p.guard != nil {
				p.guard.fail(&output.StreamError{Stream: p.name, Keeping: true, Err: err})
			}
		}
	}
}

// finish waits for the pump to reach EOF, or for at most drain when it is
// not there yet (an escaped process holds the pipe open). A pump that never
// started is at EOF with nothing read.
func (p *pump) finish(drain time.Duration) {
	if !p.started {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	// r was made non-blocking, so the poller has it and it takes a
	// deadline: the error (os.ErrNoDeadline) cannot come.
	_ = p.r.SetReadDeadline(time.Now().Add(drain))
	<-p.done
}

// tailBytes returns the stream's window.
func (p *pump) tailBytes() []byte {
	if p.keep != nil {
		return p.keep.Tail()
	}
	return p.tail.bytes()
}

// finish records the outcome of a started attempt in res.
func (c *Command) finish(res *runner.Result, status int, stdout, stderr *pump) {
	a := res.Attempt
	a.ExitCode = status
	a.Failed = status != 0
	a.StderrTail = stderr.tailBytes()
	a.StdoutTail = stdout.tailBytes()
	switch {
	case stdout.keep != nil:
		capture := stdout.keep
		a.Stdout = capture.Open
		res.Release = func() { capture.Close() }
	case stdout.total == 0:
		// Nothing to open: an empty stdout.
	case stdout.total <= int64(stdout.window):
		tail := a.StdoutTail
		a.Stdout = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(tail)), nil }
	default:
		a.Stdout = func() (io.ReadCloser, error) { return nil, ErrStdoutNotKept }
	}
	if a.Failed {
		a.ErrorCode, a.ErrorMessage = c.parseError(a.StderrTail)
	}
}

// parseError finds the error code in a failed attempt's stderr window.
func (c *Command) parseError(stderr []byte) (code, message string) {
	if code, ok := errorcode.ParseErrorPattern(stderr, c.ErrorPattern); ok {
		return code, ""
	}
	if c.ParseError != nil {
		return c.ParseError(stderr)
	}
	return errorcode.ParseCommandError(stderr)
}

// Close ends the stdin recording and drops it. Attempts after Close fail to
// start. Results already returned keep their stdout until their Release.
func (c *Command) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	if !c.hook {
		endSupervision()
	}
	if c.state != nil {
		c.state.reader.stop()
	}
	c.once.Do(func() {}) // never set up: nothing to drop
	if c.state == nil || c.state.stdin == nil {
		return nil
	}
	return c.state.stdin.close()
}

// IsTerminal reports whether f is a terminal (golang.org/x/term, so on
// every platform it supports), without changing f's mode: the check runs on
// the raw descriptor, where f.Fd() would make f blocking. A nil f is not.
// The source asks it of an attempt's stdin; cmd of retry's stdout and
// stderr.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	if err := rc.Control(func(fd uintptr) { tty = term.IsTerminal(int(fd)) }); err != nil {
		return false // closed
	}
	return tty
}
