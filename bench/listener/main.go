//go:build unix

// Command listener is the service that comes up late, for bench/tcp.sh and
// bench/readiness.sh. It reserves a port on 127.0.0.1, prints it, and after
// DELAY is up; it prints "up SECONDS" (the Unix time, to the microsecond)
// the moment it is, and serves until SIGTERM.
//
//	listener DELAY        TCP: bound, not listening (connects are refused)
//	                      until DELAY, then accepts and closes connections.
//	listener DELAY http   HTTP: listening at once, 503 until DELAY (a
//	                      service behind a proxy, still starting), then 200
//	                      "ok"; on SIGTERM it prints "requests N", every
//	                      request it answered.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	d, err := time.ParseDuration(os.Args[1])
	if err != nil {
		usage()
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	check(err)
	check(syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	check(err)
	fmt.Println(sa.(*syscall.SockaddrInet4).Port)
	if len(os.Args) > 2 && os.Args[2] == "http" {
		serveHTTP(fd, d)
		return
	}
	time.Sleep(d)
	check(syscall.Listen(fd, 128))
	up()
	ln, err := net.FileListener(os.NewFile(uintptr(fd), "listener"))
	check(err)
	for {
		c, err := ln.Accept()
		check(err)
		c.Close()
	}
}

func serveHTTP(fd int, d time.Duration) {
	check(syscall.Listen(fd, 128))
	ln, err := net.FileListener(os.NewFile(uintptr(fd), "listener"))
	check(err)
	var ready atomic.Bool
	var requests atomic.Int64
	go func() {
		time.Sleep(d)
		ready.Store(true)
		up()
	}()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		fmt.Println("requests", requests.Load())
		os.Exit(0)
	}()
	check(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if !ready.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})))
}

func up() {
	now := time.Now()
	fmt.Printf("up %d.%06d\n", now.Unix(), now.Nanosecond()/1000)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: listener DELAY [http]")
	os.Exit(2)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "listener:", err)
		os.Exit(1)
	}
}
