package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner/durable"
)

// Identity returns the hash that ties a state file to a command line: the
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
func Identity(o *Options, p *Plan) string {
	sum := sha256.Sum256(identityJSON(o, p))
	return hex.EncodeToString(sum[:])
}

// identityJSON is what Identity hashes: a JSON object of the parts of the
// command line under sorted keys — acceptors, argv (a command) or http (a
// call: data, data_given, headers, idempotent, method, url), error_pattern,
// input, subcommand, tcp (a connect: the address), waiter. It is the bytes json.Marshal writes of that
// object as a map, which is how state files' identities have always been
// made, appended by hand: encoding/json's reflection and key sorting were
// the largest CPU cost --state had left after its sync (bench/state.sh,
// perf). TestIdentityJSONIsEncodingJSON checks it against json.Marshal.
func identityJSON(o *Options, p *Plan) []byte {
	b := make([]byte, 0, 256)
	b = append(b, `{"acceptors":[`...)
	for i, s := range o.Accept.List.specs {
		if i > 0 {
			b = append(b, ',')
		}
		b = durable.AppendJSONString(b, "--"+s.flag+"="+s.value)
	}
	b = append(b, ']')
	if p.Kind == acceptor.CommandAttempt {
		b = appendJSONStrings(append(b, `,"argv":`...), p.Describe)
	}
	b = durable.AppendJSONString(append(b, `,"error_pattern":`...), o.Accept.ErrorPattern)
	if p.Kind == acceptor.HTTPAttempt {
		b = durable.AppendJSONString(append(b, `,"http":{"data":`...), o.Net.Data)
		b = strconv.AppendBool(append(b, `,"data_given":`...), o.Given("data"))
		b = appendJSONStrings(append(b, `,"headers":`...), o.Net.Headers)
		b = strconv.AppendBool(append(b, `,"idempotent":`...), o.Net.Idempotent)
		b = durable.AppendJSONString(append(b, `,"method":`...), p.Describe[0])
		b = durable.AppendJSONString(append(b, `,"url":`...), o.Net.URL)
		b = append(b, '}')
	}
	b = durable.AppendJSONString(append(b, `,"input":`...), o.Accept.Input)
	b = durable.AppendJSONString(append(b, `,"subcommand":`...), o.Name())
	if p.Kind == acceptor.TCPAttempt {
		b = durable.AppendJSONString(append(b, `,"tcp":`...), o.Net.TCP)
	}
	b = durable.AppendJSONString(append(b, `,"waiter":[`...), o.Waiter.File)
	b = durable.AppendJSONString(append(b, ','), o.Waiter.Name)
	return append(b, "]}"...)
}

// appendJSONStrings appends ss as json.Marshal writes a []string: null
// when nil.
func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = durable.AppendJSONString(b, s)
	}
	return append(b, ']')
}

// DurableConfig is what this invocation says about the sequence, whose
// state ends with exits when it ends by itself.
func DurableConfig(o *Options, p *Plan, exits durable.Exits) durable.Config {
	return durable.Config{
		Identity:    Identity(o, p),
		Command:     p.Describe,
		MaxAttempts: p.Strategy.MaxAttempts,
		MaxTime:     p.Strategy.MaxTime,
		Backoff:     p.Strategy.Backoff,
		Rand:        p.Strategy.Rand,
		Exits:       exits,
	}
}
