package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/retry-dev/retry/cmd/internal/sources"
	"github.com/retry-dev/retry/runner/durable"
)

// identity returns the hash that ties a state file to a command line: the
// subcommand (run or wait), what an attempt does — the command as it runs
// (argv after splitting; the shell, -c and the string) or the HTTP call
// (method, URL, headers and --data as given, --idempotent) or the TCP
// connect (the --tcp address as given) — and how it is
// classified (the acceptors in command-line order, --error-pattern,
// --input, --waiter-file and --waiter). Budget, delay, output and bucket
// flags (-n, --max-time, --attempt-timeout, --delay, --backoff, --schedule,
// --jitter, --mode, --scope, --report, -q, …) are not part of it: changing
// them tunes the running sequence, from its next attempt, instead of
// starting a new one. Values from RETRY_* variables count as flags do.
func identity(o *Options, p *Plan) string {
	sum := sha256.Sum256(identityJSON(o, p))
	return hex.EncodeToString(sum[:])
}

// identityJSON is what Identity hashes: json.Marshal of a map of the parts
// of the command line (so under sorted keys), which is how state files'
// identities have always been made — acceptors, argv (a command), http (a
// call: data, data_given, headers, idempotent, method, url) or tcp (a
// connect: the address), error_pattern, input, subcommand, waiter.
// TestIdentityIsStable holds the hashes of earlier releases.
func identityJSON(o *Options, p *Plan) []byte {
	id := map[string]any{"subcommand": p.Name()}
	row := sources.Of(p.Kind)
	if s := o.sourceOf(p.Kind); s != nil {
		id[row.Key] = s.Identity(o.sourceContext(row))
	} else {
		id[row.Key] = p.Describe // the command: argv
	}
	acc := make([]string, len(o.Accept.List.specs))
	for i, s := range o.Accept.List.specs {
		acc[i] = "--" + s.flag + "=" + s.value
	}
	id["acceptors"] = acc
	id["error_pattern"] = o.Accept.ErrorPattern
	id["input"] = o.Accept.Input
	id["waiter"] = []string{o.Waiter.File, o.Waiter.Name}
	b, err := json.Marshal(id)
	if err != nil {
		panic(err) // strings, bools and slices of strings always marshal
	}
	return b
}

// DurableConfig is what this invocation says about the sequence of
// --state, whose state ends with exits when it ends by itself.
func DurableConfig(p *Plan, exits durable.Exits) durable.Config {
	return durable.Config{
		Identity:    p.State.Identity,
		Command:     p.Describe,
		MaxAttempts: p.Strategy.MaxAttempts,
		MaxTime:     p.Strategy.MaxTime,
		Backoff:     p.Strategy.Backoff,
		Rand:        p.Strategy.Rand,
		Exits:       exits,
	}
}
