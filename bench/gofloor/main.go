// Command gofloor is the floor of a Go program's start-up for
// bench/startup.sh: with no argument it does nothing (the Go runtime's own
// start-up); with arguments it runs them once with os/exec, output passed
// through, and exits with the child's status (what any Go tool that runs a
// command costs at least).
package main

import (
	"errors"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		return
	}
	c := exec.Command(os.Args[1], os.Args[2:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.ExitCode())
		}
		os.Exit(127)
	}
}
