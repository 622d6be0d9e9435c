//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands and helper programs of the hardening scripts (issue 9).
func init() {
	scriptCommands["sig"] = cmdSig
	scriptCommands["iostatus"] = cmdIOStatus
	scriptPrograms["stubborn"] = stubbornMain
	scriptPrograms["ttin"] = ttinMain
}

// scriptSignals are the signals `sig` knows.
var scriptSignals = map[string]syscall.Signal{
	"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP, "QUIT": syscall.SIGQUIT,
	"KILL": syscall.SIGKILL, "PIPE": syscall.SIGPIPE, "USR1": syscall.SIGUSR1,
}

// cmdSig is `sig NAME SIG`: it sends SIG (TERM, INT, HUP, QUIT, KILL, PIPE,
// USR1) to the process started as NAME.
func cmdSig(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sig NAME SIG")
	}
	p := startedProc(ts, args[0])
	sig, ok := scriptSignals[args[1]]
	if !ok {
		ts.Fatalf("unknown signal %s", args[1])
	}
	ts.Check(p.cmd.Process.Signal(sig))
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// cmdIOStatus is `iostatus N [-stdin zero:N] [-stdout DEST] [-stderr DEST] PROG ARGS...`: it
// runs PROG like `status N`, with its stdout or stderr going to DEST
// instead of the script's: a FILE (/dev/full), or `head:K`, a pipe from
// which K bytes are read before its read end is closed (as `| head -c K`
// does); those K bytes become the script's stdout or stderr. -stdin zero:N
// feeds N zero bytes through a pipe. PROG must exit within a minute.
func cmdIOStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: iostatus N [-stdout DEST] [-stderr DEST] PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	args = args[1:]
	dest := map[string]string{}
	var stdin io.Reader = bytes.NewReader(nil)
	for len(args) > 1 && (args[0] == "-stdout" || args[0] == "-stderr" || args[0] == "-stdin") {
		if args[0] == "-stdin" {
			k, ok := strings.CutPrefix(args[1], "zero:")
			n, err := strconv.ParseInt(k, 10, 64)
			if !ok || err != nil {
				ts.Fatalf("-stdin takes zero:N")
			}
			stdin = io.LimitReader(zeros{}, n) // through a pipe: not a file
		} else {
			dest[args[0][1:]] = args[1]
		}
		args = args[2:]
	}
	c := scriptCommand(ts, args)
	c.Stdin = stdin
	c.Stdout, c.Stderr = ts.Stdout(), ts.Stderr()
	var readers []func()
	var ends []*os.File // our copies of the child's ends, closed once it started
	for stream, d := range dest {
		var w *os.File
		script := ts.Stdout()
		if stream == "stderr" {
			script = ts.Stderr()
		}
		if k, ok := strings.CutPrefix(d, "head:"); ok {
			n, err := strconv.Atoi(k)
			ts.Check(err)
			r, pw, err := os.Pipe()
			ts.Check(err)
			w = pw
			done := make(chan struct{})
			go func() {
				defer close(done)
				b := make([]byte, n)
				got, _ := io.ReadFull(r, b)
				script.Write(b[:got])
				r.Close()
			}()
			readers = append(readers, func() { <-done })
		} else {
			w, err = os.OpenFile(ts.MkAbs(d), os.O_WRONLY|os.O_CREATE, 0o644)
			ts.Check(err)
		}
		ends = append(ends, w)
		if stream == "stdout" {
			c.Stdout = w
		} else {
			c.Stderr = w
		}
	}
	err = c.Start()
	for _, f := range ends {
		f.Close() // our copy must not keep a pipe open
	}
	ts.Check(err)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		c.Process.Kill()
		ts.Fatalf("%s still running after a minute", args[0])
	}
	for _, wait := range readers {
		wait()
	}
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			got = 128 + int(ws.Signal())
		}
	case err != nil:
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[0], got, want)
	}
}

// stubbornMain is `stubborn PIDDIR`: it writes its pid to PIDDIR/leader,
// catches SIGTERM and SIGINT (creating PIDDIR/got-1, got-2… for each one it
// receives) without exiting, touches PIDDIR/ready and sleeps for an hour.
func stubbornMain() {
	dir := os.Args[1]
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	os.WriteFile(filepath.Join(dir, "leader"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
	n := 0
	for {
		select {
		case <-sigs:
			n++
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("got-%d", n)), nil, 0o644)
		case <-time.After(time.Hour):
			return
		}
	}
}

// ttinMain is `ttin PIDDIR`: it writes its pid to PIDDIR/leader and stops
// itself with SIGTTIN, as a process of a background process group that
// reads the terminal is stopped; continued, it does it again.
func ttinMain() {
	dir := os.Args[1]
	os.WriteFile(filepath.Join(dir, "leader"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	for {
		syscall.Kill(os.Getpid(), syscall.SIGTTIN)
		time.Sleep(10 * time.Millisecond)
	}
}
