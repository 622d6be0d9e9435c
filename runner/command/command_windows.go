package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// run starts the command suspended, puts it in a Job Object of its own,
// resumes it, waits for it and for everything it left behind, and records
// the outcome in res. The exit status is the leader's 32-bit exit code,
// unchanged (an NTSTATUS such as 0xC0000005 is 3221225477).
// stream, when set, receives the command's stdout instead of Stdout, and
// nothing of it is kept (AttemptStream).
func (c *Command) run(ctx context.Context, st *commandState, path string, res *runner.Result, n, maxAttempts int, stream io.Writer) {
	outR, outW, err := pipe(true)
	if err != nil {
		notStarted(res, &StartError{Name: c.Argv[0], Err: err, Code: 126})
		return
	}
	errR, errW, err := pipe(true)
	if err != nil {
		outR.Close()
		closeHandle(outW)
		notStarted(res, &StartError{Name: c.Argv[0], Err: err, Code: 126})
		return
	}
	stdin, closeStdin, detach, err := st.stdin.attach()
	if err != nil {
		outR.Close()
		errR.Close()
		closeHandle(outW)
		closeHandle(errW)
		notStarted(res, &StartError{Name: c.Argv[0], Err: fmt.Errorf("stdin: %w", err), Code: 126})
		return
	}
	flags := uint32(windows.CREATE_SUSPENDED | windows.CREATE_UNICODE_ENVIRONMENT)
	if !c.Foreground {
		flags |= windows.CREATE_NEW_PROCESS_GROUP
	}
	attr := &syscall.ProcAttr{
		Dir:   c.Dir,
		Env:   st.attemptEnv(n, maxAttempts),
		Files: []uintptr{stdin, uintptr(outW), uintptr(errW)},
		Sys:   &syscall.SysProcAttr{CreationFlags: flags, CmdLine: cmdLine(c.Argv)},
	}
	job, err := newJob()
	var pid int
	var handle uintptr
	if err == nil {
		pid, handle, err = syscall.StartProcess(path, c.Argv, attr)
		if err != nil {
			_ = windows.CloseHandle(job)
		}
	}
	closeHandle(outW)
	closeHandle(errW)
	if closeStdin {
		closeHandle(int(stdin))
	}
	if err == nil {
		// In the job before it runs a single instruction: nothing it starts
		// can be outside it.
		if err = windows.AssignProcessToJobObject(job, windows.Handle(handle)); err == nil {
			err = resume(pid)
		}
		if err != nil {
			_ = windows.TerminateProcess(windows.Handle(handle), TerminatedExitCode)
			_ = windows.CloseHandle(job)
			_ = windows.CloseHandle(windows.Handle(handle))
			err = fmt.Errorf("job object: %w", err)
		}
	}
	if err != nil {
		outR.Close()
		errR.Close()
		if detach != nil {
			detach()
		}
		notStarted(res, startError(c.Argv[0], path, c.Dir, err))
		return
	}

	stdout, stderr, guard := c.pumps(st, stream)
	stdout.r, stderr.r = outR, errR

	p := &process{pid: pid, handle: windows.Handle(handle), job: job, group: !c.Foreground, grace: c.killAfter()}
	p.killBy, _ = runner.StopBy(ctx) // the run's deadline cuts the grace
	guard.stop = p.stop
	c.current.Store(p)
	unwatch := context.AfterFunc(ctx, func() { p.stop(context.Cause(ctx)) })
	st.stdin.onFail(func(err error) { guard.fail(&output.StreamError{Stream: "stdin", Keeping: true, Err: err}) })
	stdout.start()
	stderr.start()
	code, werr := p.wait()
	unwatch()
	c.current.Store(nil)
	p.sweep()

	if detach != nil {
		detach()
	}
	// The job is closed, so every process of the attempt is gone and the
	// pipes are at EOF.
	c.conclude(res, p, int(code), werr, stdout, stderr, st, guard)
}

func closeHandle(h int) { _ = windows.CloseHandle(windows.Handle(h)) }

// pipe returns a pipe whose parent end is an *os.File opened for
// overlapped I/O (so that read deadlines and Close interrupt its reads:
// the runtime's I/O completion port has it) and whose child end is a
// plain synchronous handle, which StartProcess duplicates into the child.
// It is a named pipe, as overlapped anonymous pipes are on Windows (the
// name is unique to retry's process and refuses remote clients).
// parentReads tells which end is the parent's.
func pipe(parentReads bool) (parent *os.File, child int, err error) {
	name := `\\.\pipe\retry-` + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(rand.Uint64(), 36)
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, -1, err
	}
	openMode := uint32(windows.PIPE_ACCESS_OUTBOUND)
	childAccess := uint32(windows.GENERIC_READ)
	if parentReads {
		openMode, childAccess = windows.PIPE_ACCESS_INBOUND, windows.GENERIC_WRITE
	}
	server, err := windows.CreateNamedPipe(p, openMode|windows.FILE_FLAG_OVERLAPPED|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS, 1, pipeSize, pipeSize, 0, nil)
	if err != nil {
		return nil, -1, os.NewSyscallError("CreateNamedPipe", err)
	}
	client, err := windows.CreateFile(p, childAccess, 0, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		_ = windows.CloseHandle(server)
		return nil, -1, os.NewSyscallError("CreateFile", err)
	}
	return os.NewFile(uintptr(server), name), int(client), nil
}

// pipeSize is the buffer of an attempt's pipes.
const pipeSize = 64 << 10

// start starts the pump's goroutine.
func (p *pump) start() {
	p.started = true
	if len(*p.buf) == 0 {
		size := feedChunk
		if p.name == "stdout" {
			size = stdoutChunk
		}
		*p.buf = make([]byte, size)
	}
	go p.run()
}

// close closes the pipe.
func (p *pump) close() {
	if p.r != nil {
		p.r.Close()
	}
}

// stdoutChunk is the size of the stdout pump's reads.
const stdoutChunk = 64 << 10

// EnableSubreaper: Windows has no subreapers; the Job Object holds every
// process of an attempt. It returns errors.ErrUnsupported.
func EnableSubreaper() error { return errors.ErrUnsupported }

func isSubreaper() bool { return false }

func getpgid(int) (int, error) { return 0, errors.ErrUnsupported }

// EnableSupervisor does nothing on Windows: the attempt's Job Object ends
// its processes when retry ends, however it ends (kill-on-close).
func EnableSupervisor() {}

// IsSupervisor is false: no supervisor is started on Windows.
func IsSupervisor([]string) bool { return false }

// Supervise is never called on Windows.
func Supervise(string) int { return 0 }

func supervisorEnabled() bool { return false }
func endSupervision()         {}

// Reraise does nothing on Windows, which has no signal to die of: retry
// exits with 128+N (130 for Ctrl-C), the same number as on Unix.
func Reraise(syscall.Signal) {}

// cmdLine is the command line of a cmd.exe /d /s /c SCRIPT (--shell on
// Windows): SCRIPT as written, in the quotes /s strips, since cmd.exe does
// not read the backslash escapes of Windows' argument quoting that
// StartProcess would add. Any other argv: "" (StartProcess quotes each
// word, as os/exec does).
func cmdLine(argv []string) string {
	if len(argv) != 5 || argv[1] != "/d" || argv[2] != "/s" || argv[3] != "/c" {
		return ""
	}
	name := strings.TrimSuffix(strings.ToLower(filepath.Base(argv[0])), ".exe")
	if name != "cmd" {
		return ""
	}
	return syscall.EscapeArg(argv[0]) + ` /d /s /c "` + argv[4] + `"`
}
