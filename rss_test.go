//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["maxrss"] = cmdMaxRSS
	scriptCommands["isbody"] = cmdIsBody
}

// cmdMaxRSS is `maxrss MB [-stdout FILE] PROG ARGS...`: it runs PROG like
// `status 0` and fails unless PROG exits 0 with a peak resident set size
// (VmHWM) of at most MB mebibytes. With -stdout, PROG's stdout
// goes to FILE instead of the script's stdout (for outputs too large to hold
// in the test's memory), or, for FILE discard, to a pipe whose bytes are
// dropped; its stderr is the script's.
func cmdMaxRSS(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: maxrss MB [-stdout FILE] PROG [ARGS...]")
	}
	limit, err := strconv.ParseInt(args[0], 10, 64)
	ts.Check(err)
	args = args[1:]
	var out *os.File
	discard := false
	if args[0] == "-stdout" {
		if len(args) < 3 {
			ts.Fatalf("usage: maxrss MB [-stdout FILE] PROG [ARGS...]")
		}
		if args[1] != "discard" {
			out, err = os.Create(ts.MkAbs(args[1]))
			ts.Check(err)
			defer out.Close()
		}
		discard = args[1] == "discard"
		args = args[2:]
	}
	c := scriptCommand(ts, args)
	c.Stdin = bytes.NewReader(nil)
	c.Stdout, c.Stderr = ts.Stdout(), ts.Stderr()
	switch {
	case out != nil:
		c.Stdout = out
	case discard:
		c.Stdout = io.Discard // a pipe, read and dropped
	}
	ts.Check(c.Start())
	// The peak is the process's own high-water mark (VmHWM), polled while it
	// runs. getrusage's ru_maxrss would not do: os/exec starts children with
	// vfork, and Linux carries the parent's (this test binary's) peak across
	// the exec into the child's ru_maxrss.
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var peak int64
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for running := true; running; {
		if hwm := vmHWM(c.Process.Pid); hwm > peak {
			peak = hwm
		}
		select {
		case err = <-done:
			running = false
		case <-tick.C:
		}
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		ts.Fatalf("%s exited with status %d, want 0", args[0], ee.ExitCode())
	case err != nil:
		ts.Fatalf("%v", err)
	}
	if peak == 0 {
		ts.Fatalf("could not read the peak RSS of %s", args[0])
	}
	ts.Logf("%s: peak RSS %.1f MiB", args[0], float64(peak)/(1<<20))
	if peak > limit<<20 {
		ts.Fatalf("%s: peak RSS %.1f MiB, want at most %d MiB", args[0], float64(peak)/(1<<20), limit)
	}
}

// cmdIsBody is `isbody FILE SIZE`: FILE must hold exactly the body that
// httpserver generates for {"bodySize": SIZE} (bodyLine repeated, cut at
// SIZE bytes). It reads FILE as a stream, so SIZE may be large.
func cmdIsBody(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: isbody FILE SIZE")
	}
	size, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	want := []byte(bodyLine)
	got := make([]byte, len(want))
	var off int64
	for off < size {
		n := int(min(int64(len(want)), size-off))
		if _, err := io.ReadFull(r, got[:n]); err != nil {
			ts.Fatalf("%s: %d bytes, want %d", args[0], off, size)
		}
		if !bytes.Equal(got[:n], want[:n]) {
			ts.Fatalf("%s: %q at offset %d, want %q", args[0], got[:n], off, want[:n])
		}
		off += int64(n)
	}
	if n, _ := io.Copy(io.Discard, r); n > 0 {
		ts.Fatalf("%s: %d bytes, want %d", args[0], size+n, size)
	}
}

// vmHWM returns the peak resident set size of pid in bytes, from
// /proc/PID/status; 0 when it cannot be read (the process is gone).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(v)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}
