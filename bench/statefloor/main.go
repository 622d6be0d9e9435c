//go:build linux

// Command statefloor is the floor of what the --state contract costs a Go
// program that runs a command, for bench/state.sh: before it runs its
// command (with os/exec, as bench/gofloor does) it creates FILE (0600,
// O_EXCL) holding a record the size of a new state, locked, its data
// synced; after the command it removes FILE — the I/O of a first-attempt
// success that no implementation of the contract can go below (it has no
// atomicity: a reader could see FILE empty). Raw system calls, no
// encoding, no checks. -nosync leaves the sync out: the two side by side
// split the cost of the sync from that of creating and removing a file.
//
//	statefloor [-nosync] FILE COMMAND [ARG...]
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	args := os.Args[1:]
	sync := true
	if len(args) > 0 && args[0] == "-nosync" {
		sync, args = false, args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: statefloor [-nosync] FILE COMMAND [ARG...]")
		os.Exit(2)
	}
	path := args[0]
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0o600)
	if err == nil {
		err = syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err == nil {
		_, err = syscall.Write(fd, record[:])
	}
	if err == nil && sync {
		err = syscall.Fdatasync(fd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "statefloor:", err)
		os.Exit(125)
	}
	c := exec.Command(args[1], args[2:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = c.Run()
	if err := syscall.Unlink(path); err != nil {
		fmt.Fprintln(os.Stderr, "statefloor:", err)
	}
	syscall.Close(fd)
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.ExitCode())
		}
		os.Exit(127)
	}
}

// record is as long as the state of a new sequence (605 bytes).
var record [605]byte
