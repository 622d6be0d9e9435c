// Package cmd holds retry's cobra commands, flag parsing, environment
// defaults and the mapping of outcomes to exit statuses. It is the only
// package that decides an exit status.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/runner/command"
	"github.com/retry-dev/retry/runner/redact"
)

// Exit statuses of retry itself (the others come from the command).
const (
	exitOK       = 0
	exitFailure  = 1
	exitTempFail = 75 // EX_TEMPFAIL: --state, not due, busy, or a retry scheduled
	exitTimeout  = 124
	exitUsage    = 125
	exitNotExec  = 126
	exitNotFound = 127
)

// Version returns retry's version: the one set at build time, else the
// module version, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// exitError carries an exit status up to Main.
type exitError struct {
	code int
	msg  string // printed as "retry: msg" when not empty
}

func (e *exitError) Error() string { return e.msg }

// usageError is bad input: exit 125, nothing run.
func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

// Main runs retry with os.Args and the process's streams and returns the
// exit status (exitCode maps errors to it). It is the one place that
// touches the process: it reads the terminals and the environment
// (SystemIO), and for run and wait it subscribes to signals and lets a
// valid run switch on the child-subreaper mode (see process).
func Main() int {
	args := os.Args[1:]
	if command.IsSupervisor(args) { // retry's own re-execution: see command.Supervise
		return command.Supervise(args[1])
	}
	var proc *process
	if len(args) > 0 && (args[0] == "run" || args[0] == "wait") {
		proc = newProcess() // the subscription starts in the background: see signals
	}
	code := run(context.Background(), args, SystemIO(), proc)
	proc.reraise(code)
	return code
}

// run runs retry's command line args with ios and returns the exit status,
// having written the error line, if any, on ios.ErrOut. proc is what run
// and wait may do to the process (nil: nothing).
func run(ctx context.Context, args []string, ios *IOStreams, proc *process) int {
	root := newCmdRoot(ios, proc, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return exitCode(ios, err)
}

// exitCode turns the error of a command into its exit status, writing the
// error's line on ios.ErrOut.
func exitCode(ios *IOStreams, err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(ios.ErrOut, "retry: "+redact.Text(ee.msg))
		}
		return ee.code
	}
	// Cobra's own errors (unknown command, bad arguments) are usage errors.
	fmt.Fprintln(ios.ErrOut, "retry: "+redact.Text(flagErrorText(err)))
	return exitUsage
}

// NewCmdRoot builds the retry command tree.
func NewCmdRoot(ios *IOStreams) *cobra.Command { return newCmdRoot(ios, nil, nil) }

// newCmdRoot builds the command tree for running args, run and wait with
// proc (nil: they leave the process alone). When args name run
// or wait, that command is the only one built: the other one and its ~80
// flags, the version command and the completion commands cannot be reached
// from such a command line (cobra matches command names exactly), and
// building them is a tenth of the start-up time of `retry run`. Any other
// command line (help, completion, version, a typo) gets the whole tree.
func newCmdRoot(io *IOStreams, proc *process, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "retry",
		Short: "Re-run commands and HTTP calls until they succeed; wait for JSON states",
		Long: `retry re-runs a command or an HTTP call until it succeeds, classifying every
attempt (success, failure, or retry for a reason) with backoff, jitter and a
retry token bucket; retry wait polls a command or URL whose output is JSON
until JMESPath acceptors reach a success or failure state.`,
		Version:       Version(),
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
		return usageError("%s", flagErrorTextFor(c, err))
	})
	// The exit status table follows cobra's default help, written by a
	// function rather than a template: a help template keeps text/template
	// reachable, and with it reflect's method lookup, which makes the
	// linker keep every exported method of every type in the binary.
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		defaultHelp(c, args)
		fmt.Fprint(c.OutOrStdout(), exitStatusHelp)
	})
	switch {
	case len(args) > 0 && args[0] == "run":
		root.AddCommand(newCmdRun(io, proc))
		root.CompletionOptions.DisableDefaultCmd = true
	case len(args) > 0 && args[0] == "wait":
		root.AddCommand(newCmdWait(io, proc))
		root.CompletionOptions.DisableDefaultCmd = true
	default:
		root.AddCommand(newCmdRun(io, proc), newCmdWait(io, proc), newCmdVersion(io), newCmdState(io), NewCmdScope(io))
	}
	root.CompletionOptions.HiddenDefaultCmd = false
	return root
}

const exitStatusHelp = `
Exit status:
  0        success
  N        run: the last attempt's exit status (128+N if it died of signal N)
           when a failure acceptor matched or attempts ran out
  1        wait: a failure state was reached; run --url: the call failed
  74       output could not be written (a full disk) or kept whole (TMPDIR);
           141 (128+SIGPIPE) when stdout or stderr was a closed pipe
  75       --state: not due yet, busy, or a retry is scheduled for a later
           invocation
  124      the --max-time budget ran out, or run's last attempt timed out;
           wait: gave up (time or attempts) before a terminal state
  125      retry's own error: bad usage, invalid expression, unreadable waiter file
  126/127  the command cannot be executed / was not found
  128+N    retry itself received signal N
`

// flagErrorText turns pflag's errors into one line that names the flag and
// says what is accepted.
func flagErrorText(err error) string {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		f := iv.GetFlag()
		return fmt.Sprintf("--%s: %q: %v", f.Name, iv.GetValue(), valueProblem(f.Value, iv.Unwrap()))
	}
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		return err.Error() + " (see retry --help)"
	}
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
