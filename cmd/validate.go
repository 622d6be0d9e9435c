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
// contradict: only given flags are compared.
func (o *Options) contradictions() error {
	if o.given("schedule") {
		for _, f := range []string{"delay", "max-delay", "backoff", "jitter", "multiplier"} {
			if o.given(f) {
				return usageError("--schedule and --%s contradict: the schedule sets the delays (doubling from MIN up to MAX, no jitter); give one of them", f)
			}
		}
	}
	if o.given("shell-path") && !o.Shell {
		return usageError("--shell-path needs --shell: it names the shell that runs the --shell 'STRING'")
	}
	if o.given("max-delay") && o.given("delay") && o.MaxDelay < o.Delay {
		return usageError("--max-delay %s is below --delay %s: the cap must be at least the base delay", formatDuration(o.MaxDelay), formatDuration(o.Delay))
	}
	if o.given("multiplier") && o.Multiplier < 1 {
		return usageError("--multiplier: %s is below 1: delays would shrink; want a factor ≥ 1, like 2 or 1.5", floatValue{&o.Multiplier}.String())
	}
	return nil
}

// normalWord is an enum word as flags compare it: trimmed, lower case
// (--mode Adaptive is adaptive).
func normalWord(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
