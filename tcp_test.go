//go:build unix

package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["accepted"] = cmdAccepted
	scriptCommands["tcplistener"] = cmdTCPListener
	scriptCommands["tcpblackhole"] = cmdTCPBlackhole
	scriptPrograms["build"] = buildMain
	scriptPrograms["hook-rm"] = hookRmMain
}

// cmdTCPListener is `tcplistener NAME TRIGGER`: it reserves a port on
// 127.0.0.1 (a bound socket that does not listen yet, so connects to it are
// refused) and sets $NAME_PORT. Once the file TRIGGER exists it listens and
// accepts connections, closing each at once and writing the number accepted
// so far to TRIGGER.accepted. The script's end closes it.
func cmdTCPListener(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tcplistener NAME TRIGGER")
	}
	fd, port := boundSocket(ts)
	trigger := ts.MkAbs(args[1])
	stop := make(chan struct{})
	done := make(chan struct{})
	var lnp atomic.Pointer[net.Listener]
	go func() {
		defer close(done)
		for {
			if _, err := os.Stat(trigger); err == nil {
				break
			}
			select {
			case <-stop:
				syscall.Close(fd)
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		if err := syscall.Listen(fd, 128); err != nil {
			syscall.Close(fd)
			return
		}
		f := os.NewFile(uintptr(fd), "listener")
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			return
		}
		lnp.Store(&ln)
		select {
		case <-stop:
			ln.Close()
			return
		default:
		}
		for n := 1; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			// Atomically: a reader never sees a half-written count.
			tmp := trigger + ".accepted.tmp"
			if os.WriteFile(tmp, []byte(strconv.Itoa(n)+"\n"), 0o644) == nil {
				os.Rename(tmp, trigger+".accepted")
			}
		}
	}()
	ts.Defer(func() {
		close(stop)
		if ln := lnp.Load(); ln != nil {
			(*ln).Close()
		}
		<-done
	})
	scriptSetenv(ts, args[0]+"_PORT", strconv.Itoa(port))
}

// cmdAccepted is `accepted TRIGGER N`: it waits until the listener of
// tcplistener has accepted N connections (the kernel completes a connect
// before the listener's Accept returns, so a client may finish first), and
// fails if it accepted more, or not N within 10 seconds.
func cmdAccepted(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: accepted TRIGGER N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	file := ts.MkAbs(args[0]) + ".accepted"
	got := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		got, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if got >= want {
			break
		}
	}
	if got != want {
		ts.Fatalf("%s accepted %d connections, want %d", args[0], got, want)
	}
}

// cmdTCPBlackhole is `tcpblackhole NAME`: a listener on 127.0.0.1 ($NAME_PORT)
// that never accepts and whose accept queue is full, so that the kernel
// drops new connection requests and a connect hangs until its timeout.
func cmdTCPBlackhole(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tcpblackhole NAME")
	}
	fd, port := boundSocket(ts)
	if err := syscall.Listen(fd, 0); err != nil {
		ts.Fatalf("listen: %v", err)
	}
	// Fill the accept queue (backlog 0 holds one connection; take a few).
	var held []net.Conn
	for range 4 {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 100*time.Millisecond)
		if err != nil {
			break
		}
		held = append(held, c)
	}
	if len(held) == 0 {
		ts.Fatalf("could not fill the accept queue of 127.0.0.1:%d", port)
	}
	ts.Defer(func() {
		for _, c := range held {
			c.Close()
		}
		syscall.Close(fd)
	})
	scriptSetenv(ts, args[0]+"_PORT", strconv.Itoa(port))
}

// boundSocket returns a TCP socket bound to a free port of 127.0.0.1, not
// listening.
func boundSocket(ts *testscript.TestScript) (int, int) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	ts.Check(err)
	syscall.CloseOnExec(fd) // portable; helpers the script starts never inherit it
	ts.Check(syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	ts.Check(err)
	return fd, sa.(*syscall.SockaddrInet4).Port
}

// buildMain is `build LOCK`: it fails with status 3 while LOCK exists, else
// prints "built".
func buildMain() {
	if _, err := os.Stat(os.Args[1]); err == nil {
		fmt.Fprintf(os.Stderr, "build: %s exists\n", os.Args[1])
		os.Exit(3)
	}
	fmt.Println("built")
}

// hookRmMain is `hook-rm FILE`: an --on-retry hook that reports its
// environment on stdout and removes FILE; it fails with status 4 when FILE
// does not exist.
func hookRmMain() {
	fmt.Printf("hook: attempt %s/%s exit %s reason %s: ", os.Getenv("RETRY_ATTEMPT"), os.Getenv("RETRY_MAX_ATTEMPTS"), os.Getenv("RETRY_EXIT_CODE"), os.Getenv("RETRY_REASON"))
	if err := os.Remove(os.Args[1]); err != nil {
		fmt.Println(err)
		os.Exit(4)
	}
	fmt.Println("removed " + os.Args[1])
}
