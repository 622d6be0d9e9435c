// Command retry re-executes a command or an HTTP call until it succeeds, and
// waits for a command's or URL's JSON output to reach a state.
package main

import (
	"os"

	"github.com/retry-dev/retry/cmd"
)

func main() { os.Exit(cmd.Main()) }
