package plan

import (
	"strings"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/human"
	"github.com/retry-dev/retry/runner/redact"
)

// Validate refuses the flags that cannot hold together, before the plan
// reads or opens anything, and returns what an attempt is. (Values that
// need a file, a store or a parser to judge are refused where they are
// built, in buildPlan.)
func (o *Options) Validate() (acceptor.AttemptKind, error) {
	if o.Given("state") && o.Budget.State == "" {
		return 0, exit.Usagef("--state: give the FILE that keeps the retry sequence across invocations, like ~/.local/state/retry/job.json")
	}
	if err := o.contradictions(); err != nil {
		return 0, err
	}
	kind, err := o.attemptKind()
	if err != nil {
		return 0, err
	}
	if o.Budget.State != "" && (o.Budget.Consecutive > 1 || o.Process.OnRetry != "") {
		// Each --state invocation makes one attempt: neither a count of
		// successes in a row nor a hook between attempts is kept.
		f := "consecutive"
		if o.Process.OnRetry != "" {
			f = "on-retry"
		}
		return 0, exit.Usagef("--%s: cannot go with --state, which makes one attempt per invocation", f)
	}
	return kind, nil
}

// attemptKind returns what an attempt does: the source of sources.Table
// its flag chose (--tcp, given even empty; --url), else run the
// arguments. It refuses, naming the flag, what cannot go with that
// choice: arguments beside the flag, two sources' flags, what the source
// itself refuses (its Validate: --shell and --foreground, output flags
// with --tcp), and a source's own flags without it (--data without --url).
// This is the one place these conflicts are decided.
func (o *Options) attemptKind() (acceptor.AttemptKind, error) {
	chosen := o.chosen()
	if len(chosen) == 0 {
		for _, s := range o.sourceOpts {
			for _, f := range s.row.Flags {
				if o.Given(f) {
					return 0, exit.Usagef("--%s: only for %s: give --%s %s", f, s.row.Attempts, s.row.Flag, s.row.Metavar)
				}
			}
		}
		return acceptor.CommandAttempt, nil
	}
	s := chosen[len(chosen)-1] // of two, the later in the table names the conflict
	if len(o.Args) > 0 {
		return 0, exit.Usagef("%s: give either %s or a command, not both (got %q)", o.flagName(s.row.Flag), s.row.Noun, strings.Join(redact.Argv(o.Args), " "))
	}
	if len(chosen) > 1 {
		t := chosen[0]
		return 0, exit.Usagef("--%s: give either --%s %s or --%s %s, not both", s.row.Flag, s.row.Flag, s.row.Metavar, t.row.Flag, t.row.Metavar)
	}
	if err := s.opts.Validate(o.sourceContext(s.row)); err != nil {
		return 0, err
	}
	return s.row.Kind, nil
}

// contradictions refuses flags the user gave (on the command line or as
// RETRY_ variables) that cannot hold together, naming both. Defaults never
// contradict: only given flags are compared. An environment default is a
// default too: where it contradicts a flag of the command line, the flag
// wins and the variable is set aside (RETRY_DELAY=2s exported for every
// run does not break `retry run --schedule …`); two variables, or two
// flags, that contradict are an error.
func (o *Options) contradictions() error {
	if o.Given("schedule") {
		for _, f := range []string{"delay", "max-delay", "backoff", "jitter", "multiplier"} {
			if !o.Given(f) {
				continue
			}
			switch {
			case o.fromEnv["schedule"] && !o.fromEnv[f]:
				o.unset("schedule")
			case o.fromEnv[f] && !o.fromEnv["schedule"]:
				o.unset(f)
			default:
				return exit.Usagef("%s and %s contradict: the schedule sets the delays (doubling from MIN up to MAX, no jitter); give one of them", o.flagName("schedule"), o.flagName(f))
			}
			if !o.Given("schedule") {
				break
			}
		}
	}
	// --shell-path, given on the command line or as RETRY_SHELL_PATH, names
	// the shell of --shell: without it, it would silently do nothing.
	if o.Given("shell-path") && !o.Process.Shell {
		return exit.Usagef("%s needs --shell: it names the shell that runs the --shell 'STRING'", o.flagName("shell-path"))
	}
	if o.Given("max-delay") && o.Given("delay") && o.Delay.Max < o.Delay.Base {
		return exit.Usagef("%s %s is below %s %s: the cap must be at least the base delay", o.flagName("max-delay"), human.Duration(o.Delay.Max), o.flagName("delay"), human.Duration(o.Delay.Base))
	}
	if o.Given("multiplier") && o.Delay.Multiplier < 1 {
		return exit.Usagef("%s: %s is below 1: delays would shrink; want a factor ≥ 1, like 2 or 1.5", o.flagName("multiplier"), floatValue{&o.Delay.Multiplier}.String())
	}
	return nil
}

// unset sets a flag that came from the environment back to its default,
// as if the variable were not there.
func (o *Options) unset(name string) {
	d := o.defaultDelay
	switch name {
	case "schedule":
		o.Delay.Schedule = d.Schedule
	case "delay":
		o.Delay.Base = d.Base
	case "max-delay":
		o.Delay.Max = d.Max
	case "backoff":
		o.Delay.Backoff = d.Backoff
	case "jitter":
		o.Delay.Jitter = d.Jitter
	case "multiplier":
		o.Delay.Multiplier = d.Multiplier
	}
	delete(o.set, name)
	delete(o.fromEnv, name)
}

// normalWord is an enum word as flags compare it: trimmed, lower case
// (--mode Adaptive is adaptive).
func normalWord(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// watchConflicts refuses what --watch cannot go with: an attempt that is
// not a command (an HTTP call or a TCP connect streams no JSON documents),
// --consecutive (a document that succeeds ends the stream) and --state
// (one attempt per invocation, while a stream is watched as it goes).
func (o *Options) watchConflicts(kind acceptor.AttemptKind) error {
	w := o.flagName("watch")
	switch {
	case kind != acceptor.CommandAttempt:
		return exit.Usagef("%s: reads the JSON documents a command streams (kubectl get … -o json --watch); it cannot go with --url or --tcp", w)
	case o.Budget.Consecutive > 1:
		return exit.Usagef("%s: the first document that succeeds ends the wait; it cannot go with %s", w, o.flagName("consecutive"))
	case o.Budget.State != "":
		return exit.Usagef("%s: a stream is watched while it runs; it cannot go with %s, which makes one attempt per invocation", w, o.flagName("state"))
	}
	return nil
}
