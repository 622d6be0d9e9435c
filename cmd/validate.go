package cmd

import (
	"slices"
	"strings"

	"github.com/retry-dev/retry/runner/redact"
)

// defaultJitter is the jitter of a backoff the user gave no --jitter for:
// full for exponential and decorrelated (spreading a fleet's retries is
// their point), none for constant, linear, fibonacci and the waiter, whose
// delays users read as written ("constant" is constant).
func defaultJitter(kind string) string {
	switch kind {
	case "exponential", "decorrelated":
		return "full"
	}
	return "none"
}

// validate refuses the flags that cannot hold together, before the plan
// reads or opens anything, and returns what an attempt is. (Values that
// need a file, a store or a parser to judge are refused where they are
// built, in buildPlan.)
func (o *Options) validate() (attemptKind, error) {
	if o.given("state") && o.State == "" {
		return 0, usageError("--state: give the FILE that keeps the retry sequence across invocations, like ~/.local/state/retry/job.json")
	}
	if err := o.contradictions(); err != nil {
		return 0, err
	}
	kind, err := o.attemptKind()
	if err != nil {
		return 0, err
	}
	if o.State != "" && (o.Consecutive > 1 || o.OnRetry != "") {
		// Each --state invocation makes one attempt: neither a count of
		// successes in a row nor a hook between attempts is kept.
		f := "consecutive"
		if o.OnRetry != "" {
			f = "on-retry"
		}
		return 0, usageError("--%s: cannot go with --state, which makes one attempt per invocation", f)
	}
	if o.given("output") && o.Query == "" {
		return 0, usageError("--output: chooses how --query writes its result; give --query EXPR")
	}
	return kind, nil
}

// attemptKind is what an attempt does, as the flags choose it.
type attemptKind int

const (
	commandAttempt attemptKind = iota // runs COMMAND [ARG...], a process per attempt
	httpAttempt                       // makes the HTTP call of --url
	tcpAttempt                        // connects to --tcp HOST:PORT
)

// httpOnly are the flags that shape an HTTP call.
var httpOnly = []string{"request", "header", "data", "cacert", "insecure", "idempotent", "idempotency-key"}

// attemptKind returns what an attempt does: connect with --tcp (given,
// even empty), call --url, else run the arguments. It refuses, naming the
// flag, what cannot go with that choice: arguments beside --tcp or --url,
// --shell and --foreground (they run commands), HTTP flags without --url,
// and output or input flags with --tcp. This is the one place these
// conflicts are decided.
func (o *Options) attemptKind() (attemptKind, error) {
	switch {
	case o.TCP != "" || o.given("tcp"):
		if len(o.Args) > 0 {
			return 0, usageError("--tcp: give either an address or a command, not both (got %q)", strings.Join(o.Args, " "))
		}
		if o.URL != "" {
			return 0, usageError("--tcp: give either --tcp HOST:PORT or --url URL, not both")
		}
		if o.Shell || o.Foreground {
			return 0, usageError("--shell and --foreground run commands; they cannot go with --tcp")
		}
		for _, f := range slices.Concat(httpOnly, []string{"error-pattern", "query", "input"}) {
			if o.given(f) {
				return 0, usageError("--%s: cannot go with --tcp (a TCP connect has no output)", f)
			}
		}
		return tcpAttempt, nil
	case o.URL != "":
		if len(o.Args) > 0 {
			return 0, usageError("%s: give either a URL or a command, not both (got %q)", o.flagName("url"), strings.Join(redact.Argv(o.Args), " "))
		}
		if o.Shell {
			return 0, usageError("--shell: runs a command; it cannot go with --url")
		}
		if o.Foreground {
			return 0, usageError("--shell and --foreground run commands; they cannot go with --url")
		}
		return httpAttempt, nil
	}
	for _, f := range httpOnly {
		if o.given(f) {
			return 0, usageError("--%s: only for HTTP calls: give --url URL", f)
		}
	}
	return commandAttempt, nil
}

// method returns the HTTP method of --url: -X in upper case; without it
// GET, or POST with --data (curl's rule). The request source gets it
// resolved.
func (o *Options) method() string {
	switch {
	case o.Method != "":
		return strings.ToUpper(o.Method)
	case o.given("data"):
		return "POST"
	}
	return "GET"
}

// contradictions refuses flags the user gave (on the command line or as
// RETRY_ variables) that cannot hold together, naming both. Defaults never
// contradict: only given flags are compared. An environment default is a
// default too: where it contradicts a flag of the command line, the flag
// wins and the variable is set aside (RETRY_DELAY=2s exported for every
// run does not break `retry run --schedule …`); two variables, or two
// flags, that contradict are an error.
func (o *Options) contradictions() error {
	if o.given("schedule") {
		for _, f := range []string{"delay", "max-delay", "backoff", "jitter", "multiplier"} {
			if !o.given(f) {
				continue
			}
			switch {
			case o.fromEnv["schedule"] && !o.fromEnv[f]:
				o.unset("schedule")
			case o.fromEnv[f] && !o.fromEnv["schedule"]:
				o.unset(f)
			default:
				return usageError("%s and %s contradict: the schedule sets the delays (doubling from MIN up to MAX, no jitter); give one of them", o.flagName("schedule"), o.flagName(f))
			}
			if !o.given("schedule") {
				break
			}
		}
	}
	// --shell-path, given on the command line or as RETRY_SHELL_PATH, names
	// the shell of --shell: without it, it would silently do nothing.
	if o.given("shell-path") && !o.Shell {
		return usageError("%s needs --shell: it names the shell that runs the --shell 'STRING'", o.flagName("shell-path"))
	}
	if o.given("max-delay") && o.given("delay") && o.MaxDelay < o.Delay {
		return usageError("%s %s is below %s %s: the cap must be at least the base delay", o.flagName("max-delay"), formatDuration(o.MaxDelay), o.flagName("delay"), formatDuration(o.Delay))
	}
	if o.given("multiplier") && o.Multiplier < 1 {
		return usageError("%s: %s is below 1: delays would shrink; want a factor ≥ 1, like 2 or 1.5", o.flagName("multiplier"), floatValue{&o.Multiplier}.String())
	}
	return nil
}

// unset sets a flag that came from the environment back to its default,
// as if the variable were not there.
func (o *Options) unset(name string) {
	d := newOptions(o.Wait, o.IO)
	switch name {
	case "schedule":
		o.Schedule = d.Schedule
	case "delay":
		o.Delay = d.Delay
	case "max-delay":
		o.MaxDelay = d.MaxDelay
	case "backoff":
		o.Backoff = d.Backoff
	case "jitter":
		o.Jitter = d.Jitter
	case "multiplier":
		o.Multiplier = d.Multiplier
	}
	delete(o.set, name)
	delete(o.fromEnv, name)
}

// normalWord is an enum word as flags compare it: trimmed, lower case
// (--mode Adaptive is adaptive).
func normalWord(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
