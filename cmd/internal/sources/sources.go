// Package sources holds the kinds of attempt as values: one row of Table
// per acceptor.AttemptKind says which flag chooses it and which flags only
// it takes, how a command line with it is refused, built into a
// runner.Source and identified for --state, how a finished attempt of it
// is said, and the key its exchange is logged under. The plan (flags,
// help, validation, identity, the source built), human (the wording), the
// sinks (the JSON log's and the report's key) and completion read the
// table: a new source is a package under runner/ and one row here.
package sources

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/runner"
)

// Source is one kind of attempt.
type Source struct {
	Kind acceptor.AttemptKind
	// Name is how help names it: its flags' group is "HTTP and TCP".
	Name string
	// Key names it in --state's identity ("http", "tcp"; "argv" for the
	// command).
	Key string
	// Exchange is the shape, and the key, of its attempts' exchange
	// (runner.Exchange) in the JSON log and the report: "http" (a call:
	// method, URL, status, headers) or "tcp" (a connect: the address);
	// "" for none. A source with a shape of its own adds it to the
	// schema (cmd/internal/sinks, a versioned field in docs/logs.md).
	Exchange string
	// Flag chooses it: every attempt is then this source's. "" for the
	// command, which the arguments make when no flag chooses another.
	Flag string
	// Metavar is what Flag takes ("URL"), Noun the same in a sentence ("a
	// URL") and Attempts what its attempts are ("HTTP calls").
	Metavar, Noun, Attempts string
	// Flags are the flags only it takes, after Flag: refused, naming
	// Flag, when it is not chosen. Its Options register Flag and these.
	Flags []string
	// Files are those of its flags whose value is a file (completion).
	Files []string
	// Final: the end of a run writes its last attempt's output (an HTTP
	// call's body) to stdout.
	Final bool
	// Body: its output is a body (an HTTP call's): repeated on stderr
	// bounded and framed as "body", and, as curl -f, a failed attempt's
	// body is not the run's output (it goes to stderr).
	Body bool
	// Fallback classifies an attempt no acceptor matched, in run and wait
	// alike; nil: run's and wait's own fallbacks.
	Fallback func(a *acceptor.Attempt) (acceptor.Directive, string)
	// Ready returns the acceptors of a readiness wait on it (retry wait
	// naming no waiter model) when the command line gives none: an HTTP
	// call waits for a 2xx. nil: none (the fallback decides). A function:
	// the table is static data, built by no init code at start.
	Ready func() []acceptor.Acceptor
	// Said is how an attempt of it that has no error is said ("connection
	// accepted", "HTTP 503"); "" leaves it to the command's wording (its
	// exit status).
	Said func(a *acceptor.Attempt) string
	// New returns its options for one invocation; nil for the command,
	// whose processes the plan builds itself.
	New func() Options
}

// Options are a source's flags in one invocation, and what is built from
// them.
type Options interface {
	// Register registers Flag and Flags on fs, bound to these options.
	Register(fs *pflag.FlagSet)
	// Chosen reports whether the command line chose the source (given
	// says which flags the user set).
	Chosen(given func(flag string) bool) bool
	// Validate refuses, naming the flag, what cannot go with the source
	// once it is chosen: the command's flags, and the flags of other
	// sources given (c.Foreign).
	Validate(c *Context) error
	// Build builds the source's attempts.
	Build(c *Context) (*Built, error)
	// Identity is what ties a --state sequence to the source: what each
	// attempt does, as given. Its JSON must not change between releases
	// (TestIdentityIsStable).
	Identity(c *Context) any
}

// Context is what a source is given of the rest of the command line.
type Context struct {
	Given    func(flag string) bool
	FlagName func(flag string) string // "--url", or "RETRY_URL (--url)" for a value from the environment
	// Load resolves a value given as DATA, @FILE or @- (stdin).
	Load func(value string) ([]byte, error)
	// Usagef is a usage error (exit 125) with the message of format.
	Usagef            func(format string, args ...any) error
	Shell, Foreground bool     // the command's --shell, --foreground
	Foreign           []string // the flags only other sources take (their Flags)
	AttemptTimeout    time.Duration
	MaxOutput         int64 // --max-output, 0: none
}

// Built is a source built for a run.
type Built struct {
	Source runner.Source
	// Describe is the target as logs, the report and --state show it,
	// redacted.
	Describe []string
	Warnings []string // lines the log starts with, even with -q (--insecure)
	Close    func()   // nil: nothing to close
}

// Table holds every source, in the order help lists their flags; the
// command, which no flag chooses, is last.
var Table = []*Source{&HTTP, &TCP, &Command}

// Command is retry's first job: run the arguments as a command (the plan
// builds its processes).
var Command = Source{Kind: acceptor.CommandAttempt, Name: "command", Key: "argv"}

// Of returns the source of kind k.
func Of(k acceptor.AttemptKind) *Source {
	for _, s := range Table {
		if s.Kind == k {
			return s
		}
	}
	return &Command
}
