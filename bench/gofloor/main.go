// Command gofloor is the floor of a Go program's start-up for
// bench/startup.sh: with no argument it does nothing (the Go runtime's own
// start-up); with arguments it runs them once with os/exec, output passed
// through, and exits with the child's status (what any Go tool that runs a
// command costs at least).
//
// A first argument -signals subscribes to the signals retry run subscribes
// to (SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE, with os/signal) before
// running the rest: what a Go tool that forwards signals to its command
// costs at least. bench/startup.sh also builds it beside a file that
// imports, unused, every package retry's own packages import: the cost of
// initialising them, with none of retry's own code run.
package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "-signals" {
		signal.Notify(make(chan os.Signal, 4), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	c := exec.Command(args[0], args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.ExitCode())
		}
		os.Exit(127)
	}
}
