package command

import (
	"context"
	"errors"
	"os"

	"github.com/retry-dev/retry/runner"
)

// EnableSubreaper is Linux only: here it returns errors.ErrUnsupported.
func EnableSubreaper() error { return errors.ErrUnsupported }

// run cannot start commands on Windows yet: process groups, signals and
// the exit-status mapping are Unix designs. Every attempt fails to start.
func (c *Command) run(ctx context.Context, st *commandState, path string, res *runner.Result, n, max int) {
	notStarted(res, &StartError{Name: c.Argv[0], Err: errors.ErrUnsupported, Code: 126})
}

func lookPath(name, pathList, dir string) (string, *StartError) { return name, nil }

func isSubreaper() bool { return false }

func getpgid(pid int) (int, error) { return 0, errors.ErrUnsupported }

func pipe(parentReads bool) (parent *os.File, child int, err error) {
	return nil, -1, errors.ErrUnsupported
}
