package command

import (
	"errors"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// process is one attempt on Windows: its leader, started suspended and
// resumed once it is in the attempt's Job Object, and the job, which holds
// every process the attempt starts (none may break away from it). The job
// is made with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: when its last handle
// closes — after the attempt, or when retry.exe itself ends, however it
// ends — the kernel ends every process in it. So no process of an attempt
// outlives retry, without a supervisor.
//
// Stopping an attempt (its context is done: --attempt-timeout, --max-time,
// Ctrl-C): Windows has no SIGTERM; the gentle stop it has is the console's
// CTRL_BREAK_EVENT, sent to the attempt's process group (each attempt
// leads its own, CREATE_NEW_PROCESS_GROUP) when the attempt shares retry's
// console. After the grace (--kill-after), or at once when no console
// event could be sent (no console, or a --foreground attempt, which has no
// group of its own), TerminateJobObject ends every process of the job with
// exit code TerminatedExitCode.
type process struct {
	pid    int
	handle windows.Handle // the leader
	job    windows.Handle
	group  bool // the leader leads its own process group
	grace  time.Duration
	// killBy is when everything must be ended whatever the grace (the
	// run's deadline: runner.StopBy); zero when there is none.
	killBy time.Time

	mu      sync.Mutex
	exited  bool
	stopped error     // why stop ended it
	killAt  time.Time // when stop's grace ends
	timer   *time.Timer
}

// TerminatedExitCode is the exit code of an attempt's processes when
// retry ends them with TerminateJobObject: 1, the code Go's
// os.Process.Kill and taskkill /F give a process they end on Windows. The
// attempt's Result says why it was stopped (Stopped), so its status 1 is
// never read as the command's own failure.
const TerminatedExitCode = 1

// newJob makes an attempt's Job Object: its processes die when it is closed
// and none may break away from it.
func newJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// resume resumes the threads of the suspended process pid (its main
// thread: syscall.StartProcess closes the handle CreateProcess returns for
// it, so it is found with a Toolhelp snapshot of the system's threads).
func resume(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer func() { _ = windows.CloseHandle(snap) }()
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := false
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		_ = windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed = true
	}
	if !resumed {
		return errors.New("its main thread was not found")
	}
	return nil
}

// gentle sends CTRL_BREAK_EVENT to the attempt's process group; false
// when it cannot be sent (no console shared, or no group of its own).
func (p *process) gentle(error) bool {
	if !p.group {
		return false
	}
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.pid)) == nil
}

// kill ends every process of the job.
func (p *process) kill() { _ = windows.TerminateJobObject(p.job, TerminatedExitCode) }

// wait waits for the leader to exit and returns its 32-bit exit code.
func (p *process) wait() (uint32, error) {
	_, err := windows.WaitForSingleObject(p.handle, windows.INFINITE)
	var code uint32
	if err == nil {
		err = windows.GetExitCodeProcess(p.handle, &code)
	}
	p.mu.Lock()
	p.exited = true
	if p.timer != nil {
		p.timer.Stop()
	}
	p.mu.Unlock()
	return code, err
}

// sweep ends what the attempt left running once its leader exited: the
// rest of the job, at once (a process without a console of its own gets
// no gentler signal on Windows), and closes the job and the leader's
// handle. It returns how many processes were still in the job.
func (p *process) sweep() int {
	var info jobAccounting
	left := 0
	if windows.QueryInformationJobObject(p.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil) == nil {
		left = int(info.ActiveProcesses)
	}
	if left > 0 {
		p.kill()
	}
	_ = windows.CloseHandle(p.job)
	_ = windows.CloseHandle(p.handle)
	return left
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION (winnt.h), which
// golang.org/x/sys/windows does not define.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}
