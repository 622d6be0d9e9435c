package actioncheck

import "fmt"

// A drop-in for nick-fields/retry: a workflow step that uses only its
// inputs must end the same way through this action, except where
// nick-fields/retry has a defect. Each case is a with: block; the command
// marks each start in $STARTS and prints "live" (the output that must show
// inside its attempt's group), on_retry_command marks each run in $HOOKS.
//
// The nick column is what nick-fields/retry v3 (its dist/index.js, run by
// node with the INPUT_* variables a runner sets) did with the same block,
// side by side with this action. With RETRY_NICK_FIELDS_DIST=/path/to/
// dist/index.js and node on PATH, the test runs it again and checks the
// column; nick-fields/retry is published to no package registry, so
// without it the recorded column stands.

// mark starts every command: it records the start and prints the line
// that must appear inside the attempt's group. (The commands that time
// out sleep 30 s under a timeout_seconds of 3: seconds for bash to start
// and write its mark on a loaded machine.)
const mark = `echo live; echo >> "$STARTS"`

// ending is how a step ended: the step status, the outputs nick-fields/
// retry documents (total_attempts, exit_code; exit_error is checked to be
// set exactly when exit_code is not 0), how many times the command started
// and on_retry_command ran, and the annotations in the log.
type ending struct {
	status, attempts, exitCode int
	starts, hooks              int
	warnings, errors           int
}

func (e ending) String() string {
	return fmt.Sprintf("status %d, total_attempts %d, exit_code %d, %d starts, %d hook runs, %d warnings, %d errors",
		e.status, e.attempts, e.exitCode, e.starts, e.hooks, e.warnings, e.errors)
}

type dropIn struct {
	name string
	with string // the with: block; MARK stands for mark
	ours ending
	nick ending
	// differs says why ours does not end as nick-fields/retry does (a
	// defect of theirs that we do not copy, or a step it refuses); empty
	// when both end the same.
	differs string
	log     []string // lines our log must hold
}

func e(status, attempts, exitCode, starts, hooks, warnings, errors int) ending {
	return ending{status, attempts, exitCode, starts, hooks, warnings, errors}
}

var dropIns = []dropIn{
	{name: "success", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK`,
		ours: e(0, 1, 0, 1, 0, 0, 0), nick: e(0, 1, 0, 1, 0, 0, 0)},
	{name: "always failing", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK; exit 1`,
		ours: e(1, 3, 1, 3, 0, 2, 1), nick: e(1, 3, 1, 3, 0, 2, 1)},
	{name: "success on attempt 3", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK; [ $(wc -l < "$STARTS") -ge 3 ]`,
		ours: e(0, 3, 0, 3, 0, 2, 0), nick: e(0, 3, 0, 3, 0, 2, 0)},
	{name: "timeouts, retry_on any", with: `
timeout_seconds: 3
max_attempts: 2
retry_wait_seconds: 0.01
command: MARK; sleep 30`,
		ours: e(1, 2, 1, 2, 0, 1, 1), nick: e(1, 2, 1, 2, 0, 1, 1)},
	{name: "timeouts, retry_on timeout", with: `
timeout_seconds: 3
max_attempts: 2
retry_wait_seconds: 0.01
retry_on: timeout
command: MARK; sleep 30`,
		ours: e(1, 2, 1, 2, 0, 1, 1), nick: e(1, 2, 1, 2, 0, 1, 1)},
	{name: "timeout, retry_on error", with: `
timeout_seconds: 3
max_attempts: 2
retry_wait_seconds: 0.01
retry_on: error
command: MARK; sleep 30`,
		ours: e(1, 1, 1, 1, 0, 0, 1), nick: e(1, 1, 1, 1, 0, 0, 1)},
	{name: "an error, retry_on timeout", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
retry_on: timeout
command: MARK; exit 3`,
		ours: e(3, 1, 3, 1, 0, 0, 1), nick: e(3, 1, 3, 1, 0, 0, 1)},
	{name: "errors, retry_on error", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
retry_on: error
command: MARK; exit 3`,
		ours: e(3, 3, 3, 3, 0, 2, 1), nick: e(3, 3, 3, 3, 0, 2, 1)},
	{name: "retry_on_exit_code, the matching status", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
retry_on_exit_code: 2
command: MARK; exit 2`,
		ours: e(2, 3, 2, 3, 0, 2, 1), nick: e(2, 3, 2, 3, 0, 2, 1)},
	{name: "retry_on_exit_code, then another status", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
retry_on_exit_code: 2
command: MARK; [ $(wc -l < "$STARTS") = 1 ] && exit 2; exit 5`,
		ours: e(5, 2, 5, 2, 0, 1, 1), nick: e(5, 2, 5, 2, 0, 1, 1)},
	{name: "retry_on_exit_code, a timeout", with: `
timeout_seconds: 3
max_attempts: 3
retry_wait_seconds: 0.01
retry_on_exit_code: 2
command: MARK; sleep 30`,
		ours: e(1, 1, 1, 1, 0, 0, 1), nick: e(1, 1, 1, 1, 0, 0, 1)},
	{name: "retry_on timeout and retry_on_exit_code, a timeout", with: `
timeout_seconds: 3
max_attempts: 3
retry_wait_seconds: 0.01
retry_on: timeout
retry_on_exit_code: 2
command: MARK; sleep 30`,
		ours: e(1, 1, 1, 1, 0, 0, 1), nick: e(1, 1, 1, 1, 0, 0, 1)},
	{name: "retry_on timeout and retry_on_exit_code, the status", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
retry_on: timeout
retry_on_exit_code: 2
command: MARK; exit 2`,
		ours: e(2, 1, 2, 1, 0, 0, 1), nick: e(2, 1, 2, 1, 0, 0, 1)},
	{name: "retry_on error and retry_on_exit_code, the status", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
retry_on: error
retry_on_exit_code: 2
command: MARK; exit 2`,
		ours: e(2, 2, 2, 2, 0, 1, 1), nick: e(2, 2, 2, 2, 0, 1, 1)},
	{name: "retry_on_exit_code 0 retries any status", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
retry_on_exit_code: 0
command: MARK; exit 1`,
		ours: e(1, 2, 1, 2, 0, 1, 1), nick: e(1, 2, 1, 2, 0, 1, 1)},
	{name: "new_command_on_retry succeeds", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK; echo first; exit 1
new_command_on_retry: MARK; echo again`,
		ours: e(0, 2, 0, 2, 0, 1, 0), nick: e(0, 2, 0, 2, 0, 1, 0), log: []string{"first\n", "again\n"}},
	{name: "new_command_on_retry fails", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK; exit 1
new_command_on_retry: MARK; exit 4`,
		ours: e(4, 3, 4, 3, 0, 2, 1), nick: e(4, 3, 4, 3, 0, 2, 1)},
	{name: "on_retry_command before each retry", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK; [ $(wc -l < "$STARTS") -ge 3 ]
on_retry_command: echo >> "$HOOKS"`,
		ours: e(0, 3, 0, 3, 2, 2, 0), nick: e(0, 3, 0, 3, 2, 2, 0)},
	{name: "on_retry_command failing", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
command: MARK; exit 1
on_retry_command: echo >> "$HOOKS"; exit 3`,
		ours: e(1, 2, 1, 2, 1, 1, 1), nick: e(1, 2, 1, 2, 1, 1, 1)},
	{name: "on_retry_command sees RETRY_ATTEMPT", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK; exit 1
on_retry_command: echo "hook after attempt $RETRY_ATTEMPT" >> "$HOOKS"; echo "hook after attempt $RETRY_ATTEMPT"`,
		ours: e(1, 3, 1, 3, 2, 2, 1), nick: e(1, 3, 1, 3, 2, 2, 1),
		log: []string{"hook after attempt 1\n", "hook after attempt 2\n"}},
	{name: "on_retry_command under /bin/sh with shell python", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
shell: python
command: |
  import os
  print("live", flush=True)
  open(os.environ["STARTS"], "a").write("\n")
  raise SystemExit(1)
on_retry_command: '[ -n "$HOOKS" ] && echo >> "$HOOKS"'`,
		ours: e(1, 2, 1, 2, 1, 1, 1), nick: e(1, 2, 1, 2, 1, 1, 1)},
	{name: "continue_on_error", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
continue_on_error: true
command: MARK; exit 1`,
		ours: e(0, 2, 1, 2, 0, 2, 0), nick: e(0, 2, 1, 2, 0, 2, 0)},
	{name: "continue_on_error True", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
continue_on_error: 'True'
command: MARK; exit 1`,
		ours: e(0, 2, 1, 2, 0, 2, 0), nick: e(0, 2, 1, 2, 0, 2, 0)},
	{name: "warning_on_retry false", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
warning_on_retry: false
command: MARK; exit 1`,
		ours: e(1, 2, 1, 2, 0, 0, 1), nick: e(1, 2, 1, 2, 0, 0, 1)},
	{name: "warning_on_retry FALSE", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
warning_on_retry: 'FALSE'
command: MARK; exit 1`,
		ours: e(1, 2, 1, 2, 0, 0, 1), nick: e(1, 2, 1, 2, 0, 0, 1)},
	{name: "shell python", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
shell: python
command: |
  import os, sys
  print("live", flush=True)
  open(os.environ["STARTS"], "a").write("\n")
  sys.exit(0 if sys.version_info[0] == 3 else 1)`,
		ours: e(0, 1, 0, 1, 0, 0, 0), nick: e(0, 1, 0, 1, 0, 0, 0)},
	{name: "shell sh", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
shell: sh
command: MARK; [ -z "$BASH_VERSION" ]`,
		ours: e(0, 1, 0, 1, 0, 0, 0), nick: e(0, 1, 0, 1, 0, 0, 0)},
	{name: "shell bash", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
shell: bash
command: MARK; [ -n "$BASH_VERSION" ]`,
		ours: e(0, 1, 0, 1, 0, 0, 0), nick: e(0, 1, 0, 1, 0, 0, 0)},
	{name: "max_attempts 0", with: `
timeout_seconds: 5
max_attempts: 0
retry_wait_seconds: 0.01
command: MARK; exit 1`,
		ours: e(1, 3, 1, 3, 0, 2, 1), nick: e(1, 3, 1, 3, 0, 2, 1)},
	{name: "max_attempts 1", with: `
timeout_seconds: 5
max_attempts: 1
retry_wait_seconds: 0.01
command: MARK; exit 1`,
		ours: e(1, 1, 1, 1, 0, 0, 1), nick: e(1, 1, 1, 1, 0, 0, 1)},
	{name: "max_attempts omitted", with: `
timeout_seconds: 5
retry_wait_seconds: 0.01
command: MARK; exit 1`,
		ours: e(1, 3, 1, 3, 0, 2, 1), nick: e(1, 3, 1, 3, 0, 2, 1)},
	{name: "retry_wait_seconds omitted", with: `
timeout_seconds: 5
max_attempts: 3
command: MARK`,
		ours: e(0, 1, 0, 1, 0, 0, 0), nick: e(0, 1, 0, 1, 0, 0, 0)},
	{name: "retry_wait_seconds 1.5", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 1.5
command: MARK`,
		ours: e(0, 1, 0, 1, 0, 0, 0), nick: e(0, 1, 0, 1, 0, 0, 0)},
	{name: "timeout_minutes", with: `
timeout_minutes: 1
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK; [ $(wc -l < "$STARTS") -ge 2 ]`,
		ours: e(0, 2, 0, 2, 0, 1, 0), nick: e(0, 2, 0, 2, 0, 1, 0)},
	{name: "timeout_minutes 1.5", with: `
timeout_minutes: 1.5
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK`,
		ours: e(0, 1, 0, 1, 0, 0, 0), nick: e(0, 1, 0, 1, 0, 0, 0)},
	{name: "both timeout inputs", with: `
timeout_minutes: 1
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK`,
		ours: e(125, 0, 125, 0, 0, 0, 1), nick: e(1, 0, 1, 0, 0, 0, 1),
		differs: "a refused input exits 125 here, as retry's usage errors do (nick-fields/retry: 1); neither runs anything"},
	{name: "no timeout input", with: `
max_attempts: 2
retry_wait_seconds: 0.01
command: MARK; exit 1`,
		ours: e(1, 2, 1, 2, 0, 1, 1), nick: e(1, 0, 1, 0, 0, 0, 1),
		differs: "no timeout input is needed here (nick-fields/retry refuses the step)"},
	{name: "multi-line command", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
command: |
  MARK
  echo second line
  [ $(wc -l < "$STARTS") -ge 2 ]`,
		ours: e(0, 2, 0, 2, 0, 1, 0), nick: e(0, 2, 0, 2, 0, 1, 0), log: []string{"second line\n"}},
	{name: "pipeline, last command succeeds", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
command: MARK; false | true`,
		ours: e(0, 1, 0, 1, 0, 0, 0), nick: e(0, 1, 0, 1, 0, 0, 0)},
	{name: "pipeline, last command fails", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
command: MARK; echo a | grep -q b`,
		ours: e(1, 2, 1, 2, 0, 1, 1), nick: e(1, 2, 1, 2, 0, 1, 1)},
	{name: "SIGKILL", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
command: MARK; kill -9 $$`,
		ours: e(137, 2, 137, 2, 0, 1, 1), nick: e(0, 1, 0, 1, 0, 0, 0),
		differs: "a command killed by SIGKILL failed (nick-fields/retry counts it a success)"},
	{name: "127, a missing tool", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
command: MARK; no-such-tool-retry-action`,
		ours: e(127, 2, 127, 2, 0, 1, 1), nick: e(127, 2, 127, 2, 0, 1, 1)},
	{name: "126, not executable", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
command: MARK; /`,
		ours: e(126, 2, 126, 2, 0, 1, 1), nick: e(126, 2, 126, 2, 0, 1, 1)},
	{name: "polling_interval_seconds", with: `
timeout_seconds: 5
max_attempts: 3
retry_wait_seconds: 0.01
polling_interval_seconds: 2
command: MARK`,
		ours: e(0, 1, 0, 1, 0, 0, 0), nick: e(0, 1, 0, 1, 0, 0, 0)},
	{name: "shell cmd on Linux", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
shell: cmd
command: MARK
on_retry_command: echo >> "$HOOKS"`,
		ours: e(125, 0, 125, 0, 0, 0, 1), nick: e(1, 2, 1, 0, 1, 1, 1),
		differs: "a shell for Windows runners only is refused before anything runs, 125 (nick-fields/retry fails each attempt without starting it, runs on_retry_command between them, and exits 1)"},
	{name: "shell powershell on Linux", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
shell: powershell
command: MARK`,
		ours: e(125, 0, 125, 0, 0, 0, 1), nick: e(1, 2, 1, 0, 0, 1, 1),
		differs: "a shell for Windows runners only is refused before anything runs, 125 (nick-fields/retry fails each attempt without starting it and exits 1)"},
	{name: "shell with extra words", with: `
timeout_seconds: 5
max_attempts: 2
retry_wait_seconds: 0.01
shell: bash -e
command: MARK`,
		ours: e(125, 0, 125, 0, 0, 0, 1), nick: e(1, 1, 0, 0, 0, 0, 0),
		differs: "a shell with more words is refused, 125 (nick-fields/retry hands the whole value to Node's spawn as a program name, which is not found: it crashes with ENOENT, exit 1, no error annotation)"},
}
