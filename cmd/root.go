// Package cmd wires retry's cobra commands to their options and runs them:
// run and wait build a plan (cmd/internal/plan), run its strategy with the
// runner's events fanned out to the sinks (cmd/internal/sinks), and map
// the outcome to an exit status; state, scope and version live in
// subpackages of their own. Main is the only place that touches the
// process (its streams, signals and exit status).
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/cmd/completion"
	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/cmd/internal/plan"
	"github.com/retry-dev/retry/cmd/scope"
	"github.com/retry-dev/retry/cmd/state"
	"github.com/retry-dev/retry/cmd/version"
	"github.com/retry-dev/retry/runner/command"
)

// Version returns retry's version (cmd/version), for tools/mangen.
func Version() string { return version.Version() }

// ExitStatusTable returns the exit status table of the help, as rows of
// status and meaning, for the man pages (tools/mangen).
func ExitStatusTable() [][2]string { return exit.Table() }

// SystemIO returns the process's standard streams and environment.
func SystemIO() *iostreams.IOStreams { return iostreams.System() }

// Main runs retry with os.Args and the process's streams and returns the
// exit status (exitStatus maps how it ended to it). It is the one place that
// touches the process: it reads the terminals and the environment
// (SystemIO), and for run and wait it subscribes to signals and lets a
// valid run switch on the child-subreaper mode (see process).
func Main() int { return mainWith(iostreams.System()) }

// MainWithBudgetClock is Main with the retry budget on the clock now and
// sleep (iostreams.IOStreams.BudgetClock). The tests' retry runs scripts
// with it on a clock they control; the retry command never calls it.
func MainWithBudgetClock(now func() time.Time, sleep func(context.Context, time.Duration) error) int {
	ios := iostreams.System()
	ios.BudgetClock = &iostreams.Clock{Now: now, Sleep: sleep}
	return mainWith(ios)
}

func mainWith(ios *iostreams.IOStreams) int {
	args := os.Args[1:]
	if command.IsSupervisor(args) { // retry's own re-execution: see command.Supervise
		return command.Supervise(args[1])
	}
	var proc *process
	if len(args) > 0 && (args[0] == "run" || args[0] == "wait") {
		proc = newProcess() // the subscription starts in the background: see signals
		// A signal abandons a write to retry's stdout or stderr that a
		// reader does not take (iostreams.Interruptible).
		out, errOut := iostreams.NewInterruptible(os.Stdout), iostreams.NewInterruptible(os.Stderr)
		ios.Out, ios.ErrOut = out, errOut
		proc.streams = []*iostreams.Interruptible{out, errOut}
	}
	code := run(context.Background(), args, ios, proc)
	proc.reraise(code)
	return code
}

// run runs retry's command line args with ios and returns the exit status,
// having written the error line, if any, on ios.ErrOut. proc is what run
// and wait may do to the process (nil: nothing).
func run(ctx context.Context, args []string, ios *iostreams.IOStreams, proc *process) int {
	root := newCmdRoot(ios, proc, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	errorLine(ios, err)
	return exitStatus(err)
}

// NewCmdRoot builds the retry command tree.
func NewCmdRoot(ios *iostreams.IOStreams) *cobra.Command { return newCmdRoot(ios, nil, nil) }

// newCmdRoot builds the command tree for running args, run and wait with
// proc (nil: they leave the process alone). When args name run
// or wait, that command is the only one built: the other one and its ~80
// flags, the version command and the completion commands cannot be reached
// from such a command line (cobra matches command names exactly), and
// building them is a tenth of the start-up time of `retry run`; nor can
// completion (cobra's __complete comes first), so the flags' completions
// are registered only in the whole tree. Any other command line (help,
// completion, version, a typo) gets the whole tree.
func newCmdRoot(io *iostreams.IOStreams, proc *process, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "retry",
		Short: "Re-run commands and HTTP calls until they succeed; wait for JSON states",
		Long: `retry re-runs a command or an HTTP call until it succeeds, classifying every
attempt (success, failure, or retry for a reason) with backoff, jitter and a
retry token bucket; retry wait polls a command or URL whose output is JSON
until JMESPath acceptors reach a success or failure state.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// --version has no shorthand: -v is verbose everywhere, also before the
	// command name (retry -v run …), so the root knows it as a boolean flag
	// and does not take "run" for its value.
	root.Flags().Bool("version", false, "print retry's version")
	root.PersistentFlags().BoolP("verbose", "v", false, "log every acceptor evaluated and the value it saw (also after run or wait)")
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exit.Usagef("%s", flagErrorTextFor(c, err))
	})
	// The exit status table follows cobra's default help, written by a
	// function rather than a template: a help template keeps text/template
	// reachable, and with it reflect's method lookup, which makes the
	// linker keep every exported method of every type in the binary.
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		var b strings.Builder
		out := c.OutOrStdout()
		c.SetOut(&b)
		defaultHelp(c, args)
		c.SetOut(out)
		b.WriteString(exit.Help)
		fmt.Fprint(out, echo.Raw(plan.WrapHelp(b.String(), plan.HelpWidth(out))))
	})
	switch {
	case len(args) > 0 && args[0] == "run":
		root.AddCommand(newCmdRun(io, proc))
		root.CompletionOptions.DisableDefaultCmd = true
	case len(args) > 0 && args[0] == "wait":
		root.AddCommand(newCmdWait(io, proc))
		root.CompletionOptions.DisableDefaultCmd = true
	default:
		// --version is the root's own flag: only this tree can see it, and
		// only this one reads the build information for it.
		root.Version = version.Version()
		run, wait := newCmdRun(io, proc), newCmdWait(io, proc)
		completion.Register(run)
		completion.Register(wait)
		root.AddCommand(run, wait, version.NewCmd(io), state.NewCmd(io), scope.NewCmd(io), completion.NewCmd(root))
	}
	root.CompletionOptions.HiddenDefaultCmd = false
	return root
}

// flagErrorText turns pflag's errors into one line that names the flag and
// says what is accepted.
func flagErrorText(err error) string {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		f := iv.GetFlag()
		return fmt.Sprintf("--%s: %q: %v", f.Name, iv.GetValue(), plan.ValueProblem(f.Value, iv.Unwrap()))
	}
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		return err.Error() + " (see retry --help)"
	}
	// Cobra's "unknown command" error lists its suggestions on lines of
	// their own ("\n\nDid you mean this?\n\twait\n"): they become the
	// end of the one line.
	s, more, _ := strings.Cut(err.Error(), "\n")
	if _, list, ok := strings.Cut(more, "Did you mean this?"); ok {
		if words := strings.Fields(list); len(words) > 0 {
			s += "; did you mean " + strings.Join(words, " or ") + "?"
		}
	}
	return s
}
