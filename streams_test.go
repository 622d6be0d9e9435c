//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands for retry's own stdout when its reader stalls or goes
// away.
func init() {
	scriptCommands["startstalled"] = cmdStartStalled
	scriptCommands["waitfull"] = cmdWaitFull
	scriptCommands["closereader"] = cmdCloseReader
	scriptPrograms["genzeros"] = genzerosMain
	scriptPrograms["writeforever"] = writeforeverMain
}

// genzerosMain is `genzeros N`: it writes N zero bytes to stdout.
func genzerosMain() {
	n, _ := strconv.ParseInt(os.Args[1], 10, 64)
	if _, err := io.Copy(os.Stdout, io.LimitReader(zeros{}, n)); err != nil {
		os.Exit(1)
	}
}

// writeforeverMain is `writeforever PIDDIR`: it writes its pid to
// PIDDIR/leader and zero bytes to stdout until killed.
func writeforeverMain() {
	os.WriteFile(filepath.Join(os.Args[1], "leader"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	io.Copy(os.Stdout, zeros{})
	os.Exit(1)
}

// stalled holds the read ends of the pipes of startstalled, per script.
var stalled = map[*testscript.TestScript]map[string]*os.File{}

// cmdStartStalled is `startstalled NAME PROG ARGS...`: it starts PROG in
// the background, as start does, with its stdout a pipe that nobody reads
// (as `prog | sleep 15`), until closereader NAME closes the read end or
// the script ends. waitexit collects it; its stdout is then empty.
func cmdStartStalled(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: startstalled NAME PROG [ARGS...]")
	}
	r, w, err := os.Pipe()
	ts.Check(err)
	p := &bgProc{cmd: scriptCommand(ts, args[1:]), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = w, &p.stderr
	err = p.cmd.Start()
	w.Close()
	ts.Check(err)
	bgProcs(ts)[args[0]] = p
	if stalled[ts] == nil {
		stalled[ts] = map[string]*os.File{}
	}
	stalled[ts][args[0]] = r
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	ts.Defer(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			r.Close() // a write blocked on the full pipe fails, and the process is reaped
			<-p.done
		}
		r.Close()
		delete(stalled, ts)
	})
}

// cmdWaitFull is `waitfull NAME`: it waits (at most a minute) until the
// pipe of startstalled NAME is full, so that the process blocks writing
// it: the bytes in it (FIONREAD) reach its capacity (F_GETPIPE_SZ).
func cmdWaitFull(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfull NAME")
	}
	r := stalled[ts][args[0]]
	if r == nil {
		ts.Fatalf("no stalled process %s", args[0])
	}
	size, err := pipeCapacity(r)
	ts.Check(err)
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := pipeBuffered(r)
		ts.Check(err)
		if n >= size {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("the stdout pipe of %s holds %d bytes after a minute, not %d", args[0], n, size)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// cmdCloseReader is `closereader NAME`: it closes the read end of the pipe
// of startstalled NAME, as a reader that goes away (`| head -c 0`).
func cmdCloseReader(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: closereader NAME")
	}
	r := stalled[ts][args[0]]
	if r == nil {
		ts.Fatalf("no stalled process %s", args[0])
	}
	ts.Check(r.Close())
}
