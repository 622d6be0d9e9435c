//go:build unix

// Command rusage runs a command and prints what it cost, for the bench/
// scripts: the wall time, and the CPU time (user and system) and page
// faults of the command's whole process tree, as wait4 reports them (the
// command and every descendant it waited for). CPU time is what a busy
// machine barely moves; wall time there mostly measures the scheduler.
//
//	rusage [-n N] [-o FILE] [--] COMMAND [ARG...]
//
// With -n N the command runs N times, one after the other, and the sums
// are printed (peak RSS: the largest). The command's standard streams are
// rusage's own. The line printed (to FILE with -o, else to stderr) is
//
//	wall_s user_s sys_s maxrss_kb minflt majflt status
//
// where status is the exit status of the last run (128+N for a signal).
// rusage exits 0 unless the command could not be started (127).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 1, "run the command `N` times and sum what it cost")
	outPath := flag.String("o", "", "write the line to `FILE` instead of stderr")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: rusage [-n N] [-o FILE] [--] COMMAND [ARG...]")
		os.Exit(2)
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(127)
	}
	var wall time.Duration
	var user, sys time.Duration
	var maxrss, minflt, majflt int64
	status := 0
	for i := 0; i < *n; i++ {
		c := exec.Command(path, args[1:]...)
		c.Args[0] = args[0]
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
		start := time.Now()
		err := c.Run()
		wall += time.Since(start)
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			fmt.Fprintln(os.Stderr, "rusage:", err)
			os.Exit(127)
		}
		ru, _ := c.ProcessState.SysUsage().(*syscall.Rusage)
		if ru != nil {
			user += time.Duration(ru.Utime.Nano())
			sys += time.Duration(ru.Stime.Nano())
			maxrss = max(maxrss, int64(ru.Maxrss))
			minflt += int64(ru.Minflt)
			majflt += int64(ru.Majflt)
		}
		status = c.ProcessState.ExitCode()
		if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
	}
	line := fmt.Sprintf("%.6f %.6f %.6f %d %d %d %d\n", wall.Seconds(), user.Seconds(), sys.Seconds(), maxrss, minflt, majflt, status)
	if *outPath == "" {
		os.Stderr.WriteString(line)
		return
	}
	if err := os.WriteFile(*outPath, []byte(line), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(1)
	}
}
