package cmd

import (
	"strings"
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
	// A RETRY_SHELL_PATH default names the shell for the runs that ask for
	// --shell; only a --shell-path on the command line needs --shell.
	if o.given("shell-path") && !o.fromEnv["shell-path"] && !o.Shell {
		return usageError("--shell-path needs --shell: it names the shell that runs the --shell 'STRING'")
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
