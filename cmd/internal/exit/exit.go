// Package exit holds retry's own exit statuses, the error that carries one
// up to cmd.Main (whose exitStatus is the one place that turns how an
// invocation ended into a status), and the
// table of what each status means, as help and the man pages show it.
package exit

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Exit statuses of retry itself (the others come from the command).
const (
	OK      = 0
	Failure = 1
	// Query: wait succeeded, but its --query cannot be evaluated on the
	// final output (a type error, stdout not JSON, a result JSON cannot
	// hold). EX_DATAERR: the input data was incorrect.
	Query    = 65
	IOError  = 74 // EX_IOERR: output could not be written or kept whole
	TempFail = 75 // EX_TEMPFAIL: --state, not due, busy, or a retry scheduled
	Timeout  = 124
	Usage    = 125
	NotExec  = 126
	NotFound = 127
)

// Error carries an exit status up to cmd.Main, which prints Msg, when not
// empty, as "retry: Msg" and exits with Code.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Usagef is bad input: exit 125, nothing run. The message names the flag or
// variable and says what is accepted.
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Msg: fmt.Sprintf(format, args...)}
}

// ForStream maps a stream that broke during the run to retry's status:
// 128+SIGPIPE for a closed pipe, as a shell pipeline expects, else IOError
// (a full device, a spill file that cannot be written).
func ForStream(err error) int {
	if errors.Is(err, syscall.EPIPE) {
		return 128 + int(syscall.SIGPIPE)
	}
	return IOError
}

// Help is the exit status table that ends the help of retry, run and wait.
const Help = `
Exit status:
  0        success
  N        run: the last attempt's exit status (128+N if it died of signal N)
           when a failure acceptor matched or attempts ran out
  1        wait: a failure state was reached; run --url: the call failed
  65       wait: succeeded, but --query cannot be evaluated on the final output
           (a type error, stdout not JSON); nothing is written to stdout
  74       output could not be written (a full disk) or kept whole (TMPDIR);
           141 (128+SIGPIPE) when stdout or stderr was a closed pipe
  75       --state: not due yet, busy, or a retry is scheduled for a later
           invocation
  124      the --max-time budget ran out, or run's last attempt timed out;
           wait: gave up (time or attempts) before a terminal state
  125      retry's own error: bad usage, invalid expression, unreadable
           waiter file; wait --waiter k8s:…: stdout not JSON (add -o json)
  126/127  the command cannot be executed / was not found (or its #! interpreter)
  128+N    retry itself received signal N
`

// Table returns Help as rows of status and meaning, for the man pages
// (tools/mangen).
func Table() [][2]string {
	var rows [][2]string
	for _, line := range strings.Split(Help, "\n") {
		if !strings.HasPrefix(line, "  ") {
			continue
		}
		text := strings.TrimSpace(line)
		if strings.HasPrefix(line, "   ") && len(rows) > 0 { // a continuation
			rows[len(rows)-1][1] += " " + text
			continue
		}
		status, meaning, _ := strings.Cut(text, " ")
		rows = append(rows, [2]string{status, strings.TrimSpace(meaning)})
	}
	return rows
}
