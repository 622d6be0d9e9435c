package cmd

import (
	"io"
	"os"
	"time"

	"github.com/retry-dev/retry/runner/command"
	"github.com/spf13/pflag"
)

// Options holds everything `retry run` and `retry wait` take from flags,
// environment defaults and arguments.
type Options struct {
	Wait bool // retry wait; false is retry run

	// Budget
	Attempts       int
	MaxTime        time.Duration
	AttemptTimeout time.Duration
	KillAfter      time.Duration
	State          string

	// Delay
	Backoff       string
	Delay         time.Duration
	MaxDelay      time.Duration
	ThrottleDelay time.Duration
	Multiplier    float64
	Jitter        string
	Schedule      string
	MaxRetryAfter time.Duration
	Consecutive   int
	OnRetry       string

	// Retry budget
	Mode       string
	Scope      string
	ScopeStore string
	WhenEmpty  string

	// Classification
	Acceptors    acceptorList
	ErrorPattern string
	Input        string
	WaiterFile   string
	Waiter       string
	ListWaiters  bool

	// Output and input
	Stdout    string
	Query     string
	Output    string
	Quiet     bool
	Verbose   bool
	LogFormat string
	LogFile   string
	Report    string
	MaxOutput int64 // bytes; 0: none for live output, output.DefaultMaxKeep for kept stdout
	CI        string

	// Command forms
	Shell      bool
	ShellPath  string
	Foreground bool

	// TCP
	TCP string

	// HTTP
	URL            string
	Method         string
	Headers        []string
	Data           string
	CACert         string
	Insecure       bool
	Idempotent     bool
	IdempotencyKey string

	Args []string

	// set records which flags the user gave (command line or environment);
	// fromEnv those that came from the environment.
	set     map[string]bool
	fromEnv map[string]bool

	// IO is what the command reads, writes and takes its defaults from.
	IO *IOStreams

	// proc is what the run may do to the retry process itself; nil (tests)
	// leaves it alone: no signal is forwarded, retry adopts no orphans.
	proc *process
}

// IOStreams is the world a command sees: its standard streams, whether
// they are terminals, and the environment its flag defaults and CI
// conventions come from. Main builds the process's once (SystemIO); tests
// build one of buffers, so that a whole run goes in-process, reading
// neither the real terminal nor the RETRY_<FLAG> and CI variables of the
// test's own environment. (Where scopes keep their state is still read
// from the process's environment: see stateDir.)
type IOStreams struct {
	// In is retry's stdin: what --data @- and --input @- read. An attempt's
	// stdin must be a file, as the command source needs its descriptor (a
	// regular file is re-read from its offset by every attempt, a pipe is
	// recorded and replayed, a terminal is passed through with
	// --foreground): when In is an *os.File (the process's stdin; in a
	// test, a pipe or a temporary file) the attempts read it, and any other
	// reader, or nil, leaves them /dev/null. One field, not a reader beside
	// a file, so the two can never name different streams.
	In io.Reader
	// Out is retry's stdout: the final output, and every attempt's stdout
	// in live mode.
	Out io.Writer
	// ErrOut is retry's stderr: the log lines, and every attempt's stderr.
	ErrOut io.Writer

	// StdoutIsTerminal makes run's --stdout default live.
	StdoutIsTerminal bool
	// StderrIsTerminal gives the text log a status line while it sleeps,
	// and makes --ci auto choose no CI markup.
	StderrIsTerminal bool

	// Getenv returns the environment variable key, "" when it is unset:
	// the RETRY_<FLAG> defaults and the CI system's variables are read
	// through it. nil is an empty environment.
	Getenv func(key string) string
}

// SystemIO returns the process's standard streams and environment, each
// stream's terminal flag read once (golang.org/x/term).
func SystemIO() *IOStreams {
	return &IOStreams{
		In:               os.Stdin,
		Out:              os.Stdout,
		ErrOut:           os.Stderr,
		StdoutIsTerminal: command.IsTerminal(os.Stdout),
		StderrIsTerminal: command.IsTerminal(os.Stderr),
		Getenv:           os.Getenv,
	}
}

// getenv returns the variable key of s's environment, "" when it is unset
// or s has none.
func (s *IOStreams) getenv(key string) string {
	if s == nil || s.Getenv == nil {
		return ""
	}
	return s.Getenv(key)
}

// stdinFile returns the file behind In, nil when In is not a file.
func (s *IOStreams) stdinFile() *os.File {
	f, _ := s.In.(*os.File)
	return f
}

// newOptions returns the defaults of run (wait false) or wait (wait true).
func newOptions(wait bool, io *IOStreams) *Options {
	o := &Options{
		Wait:          wait,
		Attempts:      5,
		KillAfter:     5 * time.Second,
		Backoff:       "exponential",
		Delay:         time.Second,
		MaxDelay:      20 * time.Second,
		ThrottleDelay: 5 * time.Second,
		Multiplier:    2,
		MaxRetryAfter: 60 * time.Second,
		Consecutive:   1,
		Output:        "json",
		Mode:          "standard",
		WhenEmpty:     "fail",
		LogFormat:     "text",
		CI:            "auto",
		ShellPath:     "/bin/sh",
		IO:            io,
		set:           map[string]bool{},
		fromEnv:       map[string]bool{},
	}
	if wait {
		o.Attempts = 0
		o.MaxTime = 10 * time.Minute
		o.Backoff = "waiter"
		o.Delay = 2 * time.Second
		o.MaxDelay = 30 * time.Second // a waiter model brings its own (Smithy: 120s)
		o.Mode = "off"
		o.Stdout = "final"
	}
	return o
}

// register wires every shared flag to o.
func (o *Options) register(fs *pflag.FlagSet) {
	fs.SortFlags = false
	fs.VarP(countValue{&o.Attempts}, "attempts", "n", "most attempts, the first included; 0 is unlimited (until a success or failure state, a signal or --max-time)")
	fs.Var(durationValue{&o.MaxTime}, "max-time", "budget for the whole run, attempts and delays included (0: none)")
	fs.Var(durationValue{&o.AttemptTimeout}, "attempt-timeout", "budget for each attempt; a timed-out attempt is retried (timeout)")
	fs.Var(durationValue{&o.KillAfter}, "kill-after", "grace between SIGTERM and SIGKILL to an attempt's process group")
	fs.StringVar(&o.State, "state", "", "keep the retry sequence in `FILE` across invocations (cron): at most one attempt per invocation, exit 75 until due")

	fs.Var(enumValue{&o.Backoff, []string{"exponential", "constant", "linear", "fibonacci", "decorrelated", "waiter"}}, "backoff", "delay strategy: exponential, constant, linear, fibonacci, decorrelated or waiter")
	fs.VarP(durationValue{&o.Delay}, "delay", "d", "base delay")
	fs.Var(durationValue{&o.MaxDelay}, "max-delay", "cap on a delay, before jitter")
	fs.Var(durationValue{&o.ThrottleDelay}, "throttle-delay", "base delay for throttling retries")
	fs.Var(floatValue{&o.Multiplier}, "multiplier", "exponential factor")
	fs.Var(enumValue{&o.Jitter, []string{"full", "equal", "none"}}, "jitter", "jitter applied to each delay: full, equal or none (default: full for exponential and decorrelated, none for the others)")
	fs.StringVar(&o.Schedule, "schedule", "", "compact schedule `'[COUNT] MIN [MAX]'`: COUNT retries, delays doubling from MIN up to MAX (1h), no jitter")
	fs.Var(durationValue{&o.MaxRetryAfter}, "max-retry-after", "cap on a server's retry-after hint")
	fs.Var(positiveValue{&o.Consecutive}, "consecutive", "success only after N successful attempts in a row; a retry in between starts the count again")
	fs.StringVar(&o.OnRetry, "on-retry", "", "run `'COMMAND STRING'` before every retry (with --shell: by the shell), with RETRY_ATTEMPT, RETRY_EXIT_CODE and RETRY_REASON set; its failure is logged")

	fs.Var(enumValue{&o.Mode, []string{"standard", "adaptive", "off"}}, "mode", "retry token bucket: standard, adaptive (adds client-side rate limiting) or off")
	fs.StringVar(&o.Scope, "scope", "", "share a retry token bucket (and the adaptive rate) with every retry naming `NAME`; without it there is no bucket")
	fs.StringVar(&o.ScopeStore, "scope-store", "", "`URL` of the store where scopes live: redis://[USER:PASSWORD@]HOST[:PORT][/DB] or rediss://… (default: the state directory on this machine)")
	fs.Var(enumValue{&o.WhenEmpty, []string{"fail", "wait"}}, "when-empty", "when the scope's bucket cannot pay for a retry: fail (end the run) or wait for the refill, within --max-time (wait spends only the top 50 of its 500 tokens)")

	o.Acceptors.register(fs)
	fs.StringVar(&o.ErrorPattern, "error-pattern", "", "`RE2` regexp whose first capture group is the error code in stderr")
	fs.StringVar(&o.Input, "input", "", "`JSON` (or @FILE) that JMESPath acceptors see as input: {\"input\": …, \"output\": …}")
	fs.StringVar(&o.WaiterFile, "waiter-file", "", "botocore waiters-2.json or Smithy JSON model `FILE` to load a waiter from")
	fs.StringVar(&o.Waiter, "waiter", "", "`NAME` of the waiter in --waiter-file, or SERVICE:NAME of a botocore waiter built into retry (dynamodb:table-exists)")
	fs.BoolVar(&o.ListWaiters, "list-waiters", false, "list the waiters in --waiter-file (without it: the built-in ones) and exit")

	if o.Wait {
		fs.StringVar(&o.Query, "query", "", "write the JMESPath projection `EXPR` of the final output instead of the output")
		fs.Var(enumValue{&o.Output, []string{"json", "text"}}, "output", "how --query writes its result: json, or text (strings unquoted, arrays one element per line)")
	} else {
		fs.Var(enumValue{&o.Stdout, []string{"live", "final"}}, "stdout", "live: every attempt's stdout as it comes; final: only the last attempt's (default: live on a terminal)")
	}
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "no log lines"+map[bool]string{true: "; nothing on stdout", false: ""}[o.Wait])
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "log every acceptor evaluated and the value it saw")
	fs.Var(enumValue{&o.LogFormat, []string{"text", "json"}}, "log-format", "log lines as text or one JSON object per event")
	fs.StringVar(&o.LogFile, "log-file", "", "write retry's own log lines (text or JSON) to `FILE` instead of stderr; the command's stderr stays on stderr")
	fs.StringVar(&o.Report, "report", "", "write a JSON report of the run to `FILE`")
	fs.Var(sizeValue{&o.MaxOutput}, "max-output", "stop an attempt whose stdout and stderr pass `SIZE` (512K, 10M, 1G; default: no bound for live output, 10GiB for kept stdout)")
	fs.Var(enumValue{&o.CI, ciModes}, "ci", "CI log conventions: auto (GITHUB_ACTIONS, GITLAB_CI; none on a terminal), github, gitlab or none")

	fs.BoolVar(&o.Shell, "shell", false, "run the one argument with the shell (--shell-path)")
	fs.StringVar(&o.ShellPath, "shell-path", "/bin/sh", "`SHELL` for --shell")
	fs.BoolVar(&o.Foreground, "foreground", false, "keep the command in retry's process group (interactive commands)")

	fs.StringVar(&o.TCP, "tcp", "", "connect to `HOST:PORT` instead of running a command: an attempt succeeds when the connection is accepted")
	fs.StringVar(&o.URL, "url", "", "make an HTTP call to `URL` instead of running a command")
	fs.StringVarP(&o.Method, "request", "X", "", "HTTP `METHOD` (default GET, or POST with --data)")
	fs.VarP(stringsValue{&o.Headers}, "header", "H", "HTTP header 'Name: value' (repeatable)")
	fs.StringVar(&o.Data, "data", "", "HTTP request body `DATA`, or @FILE; sent identically on every attempt")
	fs.StringVar(&o.CACert, "cacert", "", "PEM `FILE` of certificate authorities to trust for HTTPS")
	fs.BoolVar(&o.Insecure, "insecure", false, "do not verify the server's TLS certificate (warns)")
	fs.BoolVar(&o.Idempotent, "idempotent", false, "retry non-idempotent methods (POST, PATCH) even when the request may have been sent")
	fs.StringVar(&o.IdempotencyKey, "idempotency-key", "", "send Idempotency-Key: `KEY` (auto: a random one) on every attempt")
}
