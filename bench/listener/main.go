// Command listener is bench/tcp.sh's service that comes up late: it
// reserves a port on 127.0.0.1 (bound, not listening: connects are
// refused), prints it, listens after DELAY, and accepts and closes
// connections until killed.
package main

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

func main() {
	d, err := time.ParseDuration(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: listener DELAY")
		os.Exit(2)
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	check(err)
	check(syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	check(err)
	fmt.Println(sa.(*syscall.SockaddrInet4).Port)
	time.Sleep(d)
	check(syscall.Listen(fd, 128))
	ln, err := net.FileListener(os.NewFile(uintptr(fd), "listener"))
	check(err)
	for {
		c, err := ln.Accept()
		check(err)
		c.Close()
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "listener:", err)
		os.Exit(1)
	}
}
