// Package plan is what `retry run` and `retry wait` are asked to do and
// how it is built: the options of their flags (grouped as the help groups
// them), their environment defaults RETRY_<FLAG>, the checks that refuse
// what cannot hold together, and the run built from them — the strategy,
// the attempt source, the acceptor chain and the retry budget of a scope.
// Building a plan reads the files its flags name and opens the scope
// store, but starts no process and changes nothing in the retry process;
// it is tested without processes.
package plan

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
)

// Options is the core that `retry run` and `retry wait` share: what both
// take from flags, environment defaults and arguments, grouped as their
// help groups them. Each command has its own options over it (RunOptions,
// WaitOptions: cli/cli's one options struct per command), and cmd holds
// them only as a Command: it sees the plan built from them, never a field.
type Options struct {
	// wait: the core is wait's. Each decision that differs between run
	// and wait reads it once: Name, Readiness, the fallback of the chain,
	// a wait's need of an acceptor and what it keeps of a stopped poll.
	wait bool

	Budget  Budget
	Delay   Delay
	Retry   RetryBudget
	Accept  Acceptors
	Waiter  Waiter
	Output  Output
	Process Process
	// sourceOpts are the options of the sources a flag chooses (--url,
	// --tcp): one per row of sources.Table but the command's.
	sourceOpts []sourceOptions
	CI         string // --ci: auto, github, gitlab or none
	// CIRetryAnnotation and CIFailureAnnotation are the GitHub annotation
	// of a retried attempt (warning or none) and of a run that does not
	// succeed (error or warning).
	CIRetryAnnotation   string
	CIFailureAnnotation string

	Args []string
	// ArgvAfterDash says the arguments came after "--": they are argv,
	// word for word, never a command string to split.
	ArgvAfterDash bool

	// set records which flags the user gave (command line or environment);
	// fromEnv those that came from the environment.
	set     map[string]bool
	fromEnv map[string]bool
	// defaultDelay is the command's default delays, which a RETRY_ variable
	// set aside by a flag falls back to (contradictions).
	defaultDelay Delay

	// IO is what the command reads, writes and takes its defaults from.
	IO *iostreams.IOStreams
}

// Budget is how much a run may spend: attempts, time, and the durable
// sequence of --state.
type Budget struct {
	Attempts       int
	MaxTime        time.Duration
	AttemptTimeout time.Duration
	Consecutive    int
	State          string
}

// Delay is how long to wait between attempts.
type Delay struct {
	Backoff       string
	Base          time.Duration // --delay
	Max           time.Duration // --max-delay
	Throttle      time.Duration // --throttle-delay
	Multiplier    float64
	Jitter        string
	Schedule      string
	MaxRetryAfter time.Duration
}

// RetryBudget is the retry token bucket and its scope.
type RetryBudget struct {
	Mode      string
	Scope     string
	Store     string // --scope-store
	WhenEmpty string
}

// Acceptors classify attempts: the acceptor flags in command-line order,
// the error code pattern and the input JMESPath acceptors see.
type Acceptors struct {
	List         acceptorList
	ErrorPattern string
	Input        string
}

// Waiter is a waiter model to load acceptors and delays from.
type Waiter struct {
	File string // --waiter-file
	Name string // --waiter
	List bool   // --list-waiters
}

// Output is what retry writes, and where (run's --stdout and wait's
// --query and --output are the commands' own: RunOptions, WaitOptions).
type Output struct {
	Quiet     bool
	Verbose   bool
	LogFormat string
	LogFile   string
	Report    string
	MaxOutput int64 // bytes; 0: none for live output, output.DefaultMaxKeep for kept stdout
}

// Process is how a command attempt runs.
type Process struct {
	Shell      bool
	ShellPath  string
	Foreground bool
	// SuperviseEarly starts the supervisor before the first attempt
	// (command.Command.SuperviseEarly).
	SuperviseEarly bool
	KillAfter      time.Duration
	OnRetry        string
}

// RunOptions are `retry run`'s: the shared core and --stdout.
type RunOptions struct {
	Options
	Stdout string // live or final; "": live on a terminal
}

// WaitOptions are `retry wait`'s: the shared core, --query, --output and
// --watch.
type WaitOptions struct {
	Options
	Query  string // --query EXPR
	Format string // --output: how --query writes its result
	// Watch: the acceptors see each JSON document the command streams, as
	// it comes, not its output once it ends.
	Watch bool
}

// A Command is run's or wait's options as cmd holds them: it registers
// their flags, and once cobra has parsed them it builds the plan — all cmd
// sees of them (TestCmdSeesOnlyThePlan).
type Command interface {
	// Register wires the command's flags to its options.
	Register(fs *pflag.FlagSet)
	// Plan takes the arguments (argvAfterDash: they came after "--") and
	// the environment defaults of the flags fs did not set, and builds the
	// plan. A nil plan with a nil error is an invocation answered without
	// a run: --list-waiters, which wrote its list.
	Plan(fs *pflag.FlagSet, args []string, argvAfterDash bool) (*Plan, error)

	options() *Options
	stdout() stdout
	// watch reports wait --watch: a command's attempts are streams of
	// JSON documents, each evaluated as it comes.
	watch() bool
}

// stdout is what an invocation writes on its stdout, as its own flags say:
// run's attempts' stdout as it comes (live) or the last one's at the end;
// wait's last state, or its --query projection.
type stdout struct {
	live  bool
	query string // wait --query EXPR
	text  bool   // wait --output text
}

// NewRun returns run's options with their defaults.
func NewRun(io *iostreams.IOStreams) Command { return newRun(io) }

// NewWait returns wait's options with their defaults.
func NewWait(io *iostreams.IOStreams) Command { return newWait(io) }

func newRun(io *iostreams.IOStreams) *RunOptions {
	o := &RunOptions{Options: core(io)}
	o.defaultDelay = o.Delay
	return o
}

func newWait(io *iostreams.IOStreams) *WaitOptions {
	o := &WaitOptions{Options: core(io), Format: "json"}
	o.wait = true
	o.Budget.Attempts = 0
	o.Budget.MaxTime = 10 * time.Minute
	o.Delay.Backoff = "waiter"
	o.Delay.Base = 2 * time.Second
	o.Delay.Max = 30 * time.Second // a waiter model brings its own (Smithy: 120s)
	o.Retry.Mode = "off"
	o.defaultDelay = o.Delay
	return o
}

// core returns the defaults run and wait share.
func core(io *iostreams.IOStreams) Options {
	return Options{
		Budget:              Budget{Attempts: 5, Consecutive: 1},
		Delay:               Delay{Backoff: "exponential", Base: time.Second, Max: 20 * time.Second, Throttle: 5 * time.Second, Multiplier: 2, MaxRetryAfter: 60 * time.Second},
		Retry:               RetryBudget{Mode: "standard", WhenEmpty: "fail"},
		Output:              Output{LogFormat: "text"},
		Process:             Process{ShellPath: defaultShell, KillAfter: 5 * time.Second},
		CI:                  "auto",
		CIRetryAnnotation:   "warning",
		CIFailureAnnotation: "error",
		IO:                  io,
		sourceOpts:          newSourceOptions(),
		set:                 map[string]bool{},
		fromEnv:             map[string]bool{},
	}
}

func (o *RunOptions) options() *Options  { return &o.Options }
func (o *WaitOptions) options() *Options { return &o.Options }

func (o *RunOptions) watch() bool  { return false }
func (o *WaitOptions) watch() bool { return o.Watch }

func (o *RunOptions) stdout() stdout {
	return stdout{live: o.Stdout == "live" || (o.Stdout == "" && o.IO.StdoutIsTerminal)}
}

func (o *WaitOptions) stdout() stdout {
	return stdout{query: o.Query, text: o.Format == "text"}
}

// Register wires run's flags: the core's, with --stdout among the output
// flags.
func (o *RunOptions) Register(fs *pflag.FlagSet) {
	o.register(fs, "no log lines", func() {
		fs.Var(enumValue{&o.Stdout, []string{"live", "final"}}, "stdout", "live: every attempt's stdout as it comes; final: only the last attempt's, held until it ends (default: live on a terminal). A command whose output never ends (tail -f, yes) needs live when piped; a reader that goes away stops a held attempt at its first byte (exit 141)")
	})
}

// Register wires wait's flags: the core's, with --query and --output among
// the output flags.
func (o *WaitOptions) Register(fs *pflag.FlagSet) {
	o.register(fs, "no log lines; nothing on stdout", func() {
		fs.BoolVar(&o.Watch, "watch", false, "evaluate the acceptors on each JSON document the command streams, as it prints it (kubectl get … -o json --watch), so a state is seen when it happens; a stream that ends is an attempt, restarted after the delay")
		fs.StringVar(&o.Query, "query", "", "write the JMESPath projection `EXPR` of the final output instead of the output")
		fs.Var(enumValue{&o.Format, []string{"json", "text"}}, "output", "how --query writes its result: json, or text (strings unquoted, arrays one element per line)")
	})
}

func (o *RunOptions) Plan(fs *pflag.FlagSet, args []string, argvAfterDash bool) (*Plan, error) {
	return parsed(o, fs, args, argvAfterDash)
}

func (o *WaitOptions) Plan(fs *pflag.FlagSet, args []string, argvAfterDash bool) (*Plan, error) {
	return parsed(o, fs, args, argvAfterDash)
}

// parsed is Command.Plan: c's parsed flags, with args and the environment
// defaults, built into a plan (or the waiters listed).
func parsed(c Command, fs *pflag.FlagSet, args []string, argvAfterDash bool) (*Plan, error) {
	o := c.options()
	o.Args, o.ArgvAfterDash = args, argvAfterDash
	if err := o.ApplyEnv(fs); err != nil {
		return nil, err
	}
	if o.Waiter.List {
		return nil, listWaiters(o)
	}
	return Build(c)
}

// register wires the shared flags to o; own registers the command's own
// output flags, after --list-waiters (quiet: what -q's help says).
func (o *Options) register(fs *pflag.FlagSet, quiet string, own func()) {
	fs.SortFlags = false
	fs.VarP(countValue{&o.Budget.Attempts}, "attempts", "n", "most attempts, the first included; 0 is unlimited (until a success or failure state, a signal or --max-time)")
	fs.Var(durationValue{&o.Budget.MaxTime}, "max-time", "budget for the whole run, attempts and delays included (0: none)")
	fs.Var(durationValue{&o.Budget.AttemptTimeout}, "attempt-timeout", "budget for each attempt; a timed-out attempt is retried (timeout). Without it a --tcp connect has 10s and a --url call 60s until its response headers")
	fs.Var(durationValue{&o.Process.KillAfter}, "kill-after", "grace between SIGTERM and SIGKILL to an attempt's process group; run: also after --max-time, which a run can pass by that much; wait: out of --max-time, which a wait never passes")
	fs.StringVar(&o.Budget.State, "state", "", "keep the retry sequence in `FILE` (or redis://…/KEY, shared by machines) across invocations (cron): at most one attempt per invocation, exit 75 until due")

	fs.Var(enumValue{&o.Delay.Backoff, backoff.Names()}, "backoff", "delay strategy: "+wordList(backoff.Names()))
	fs.VarP(durationValue{&o.Delay.Base}, "delay", "d", "base delay")
	fs.Var(durationValue{&o.Delay.Max}, "max-delay", "cap on a delay, before jitter")
	fs.Var(durationValue{&o.Delay.Throttle}, "throttle-delay", "base delay for throttling retries")
	fs.Var(floatValue{&o.Delay.Multiplier}, "multiplier", "exponential factor")
	fs.Var(enumValue{&o.Delay.Jitter, []string{"full", "equal", "none"}}, "jitter", "jitter applied to each delay: full, equal or none (default: full for exponential and decorrelated, none for the others)")
	fs.StringVar(&o.Delay.Schedule, "schedule", "", "compact schedule `'[COUNT] MIN [MAX]'`: COUNT retries, delays doubling from MIN up to MAX (1h), no jitter")
	fs.Var(durationValue{&o.Delay.MaxRetryAfter}, "max-retry-after", "cap on a server's retry-after hint")
	fs.Var(positiveValue{&o.Budget.Consecutive}, "consecutive", "success only after N successful attempts in a row; a retry in between starts the count again")
	fs.StringVar(&o.Process.OnRetry, "on-retry", "", "run `'COMMAND STRING'` before every retry (with --shell: by the shell), with RETRY_ATTEMPT, RETRY_EXIT_CODE and RETRY_REASON set; its failure is logged")

	fs.Var(enumValue{&o.Retry.Mode, []string{"standard", "adaptive", "off"}}, "mode", "retry token bucket: standard, adaptive (adds client-side rate limiting) or off")
	fs.StringVar(&o.Retry.Scope, "scope", "", "share a retry token bucket (and the adaptive rate) with every retry naming `NAME`; without it there is no bucket")
	fs.StringVar(&o.Retry.Store, "scope-store", "", "`URL` of the store where scopes live: redis://[USER@]HOST[:PORT][/DB], redis+cluster://HOST:PORT,… or redis+sentinel://HOST:PORT,…/MASTER[/DB] (rediss… with TLS; the password, CA and client certificate in RETRY_REDIS_PASSWORD_FILE, RETRY_REDIS_CACERT… as docs/redis.md says; default: the state directory on this machine)")
	fs.Var(enumValue{&o.Retry.WhenEmpty, []string{"fail", "wait"}}, "when-empty", "when the scope's bucket cannot pay for a retry: fail (end the run) or wait for the refill, within --max-time (wait spends only the top 50 of its 500 tokens)")

	o.Accept.List.register(fs)
	fs.StringVar(&o.Accept.ErrorPattern, "error-pattern", "", "`RE2` regexp whose first capture group is the error code in stderr")
	fs.StringVar(&o.Accept.Input, "input", "", "`JSON` (or @FILE) that JMESPath acceptors see as input: {\"input\": …, \"output\": …}")
	fs.StringVar(&o.Waiter.File, "waiter-file", "", "botocore waiters-2.json or Smithy JSON model `FILE` to load a waiter from")
	fs.StringVar(&o.Waiter.Name, "waiter", "", "`NAME` of the waiter in --waiter-file, or SERVICE:NAME of a botocore waiter built into retry (dynamodb:table-exists)")
	fs.BoolVar(&o.Waiter.List, "list-waiters", false, "list the waiters in --waiter-file (without it: the built-in ones) and exit")

	own()
	fs.BoolVarP(&o.Output.Quiet, "quiet", "q", false, quiet)
	fs.BoolVarP(&o.Output.Verbose, "verbose", "v", false, "log every acceptor evaluated and the value it saw")
	fs.Var(enumValue{&o.Output.LogFormat, []string{"text", "json"}}, "log-format", "log lines as text or one JSON object per event (a line of repeated output included: every line parses)")
	fs.StringVar(&o.Output.LogFile, "log-file", "", "write retry's own log lines (text or JSON) to `FILE` instead of stderr (not the --report, --state or stdin file); the command's stderr stays on stderr")
	fs.StringVar(&o.Output.Report, "report", "", "write a JSON report of the run to `FILE` (not the --log-file, --state or stdin file)")
	fs.Var(sizeValue{&o.Output.MaxOutput}, "max-output", "stop an attempt whose stdout and stderr pass `SIZE` (512K, 10M, 1G; default: no bound for live output, 10GiB for kept stdout)")
	fs.Var(enumValue{&o.CI, ciModes}, "ci", "CI log conventions: auto (GITHUB_ACTIONS, GITLAB_CI; none on a terminal), github, gitlab or none")
	fs.Var(enumValue{&o.CIRetryAnnotation, []string{"warning", "none"}}, "ci-retry-annotation", "GitHub: a retried attempt is a warning annotation, or none (its log line only)")
	fs.Var(enumValue{&o.CIFailureAnnotation, []string{"error", "warning"}}, "ci-failure-annotation", "GitHub: a run that does not succeed is an error annotation, or a warning (a step allowed to fail)")

	fs.BoolVar(&o.Process.Shell, "shell", false, "run the one argument with the shell (--shell-path)")
	fs.StringVar(&o.Process.ShellPath, "shell-path", defaultShell, "`SHELL` for --shell")
	fs.BoolVar(&o.Process.Foreground, "foreground", false, "keep the command in retry's process group (interactive commands)")
	fs.BoolVar(&o.Process.SuperviseEarly, "supervise-early", false, "Linux: start the supervisor that ends the attempts' processes when retry is killed (SIGKILL) before the first attempt, not after 50ms of one")

	for _, s := range o.sourceOpts {
		s.opts.Register(fs)
	}
}

// ciModes are the words --ci (RETRY_CI) accepts.
var ciModes = []string{"auto", "github", "gitlab", "none"}

// wordList joins words for help: "a, b or c".
func wordList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
