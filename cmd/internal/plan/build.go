package plan

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/jmes"
	"github.com/retry-dev/retry/acceptor/waitermodel"
	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/cmd/internal/writepolicy"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/output"
)

// Plan is everything a run needs, built and validated before the first
// attempt: nothing runs when building it fails.
type Plan struct {
	// Wait: the plan is retry wait's (a poll no acceptor claims is not yet
	// done, and how it ends says so); false is retry run's.
	Wait     bool
	Strategy *runner.Strategy
	Source   runner.Source
	// Close closes the source and the scope store.
	Close     func()
	Query     *jmes.Query // wait --query, nil without
	QueryText bool        // wait --output text: how Query writes its result
	Final     bool        // write the last attempt's stdout at the end
	// Kind is what an attempt does: run a command (processes, whose
	// orphans retry adopts, with an exit status of their own), make an
	// HTTP call or a TCP connect (no exit status: a run that fails exits
	// 1; a failed call's body is not the output).
	Kind     acceptor.AttemptKind
	Describe []string // the command or URL as logs and the report show it, redacted
	// MaxTime is the run's time budget as limits decided it, which the log
	// names: --max-time, or 0 (none) when a waiter's attempt limit bounds
	// the run.
	MaxTime time.Duration
	LogFile *writepolicy.Stream // --log-file (the write policy's), nil for stderr
	// warn reports a problem during the run (a failing scope store),
	// through the log once it exists: Run's Hooks.Warn.
	warn   func(format string, args ...any)
	Stderr *iostreams.SharedStderr // retry's stderr, shared by the attempts and the log
	IO     *iostreams.IOStreams    // the streams and environment the run writes on and reads
	Log    Log
	// Warnings are the lines the log starts with, written even with -q:
	// --insecure's, then deprecated JMESPath syntax read anyway (a bare
	// word in backquotes), one each, naming the flag or waiter, then a
	// Redis store's password given in argv, naming the flag.
	Warnings []string
	// State is where --state keeps the sequence; nil without --state.
	State *StateStore
}

// Log is how the run is told: what its sinks are given.
type Log struct {
	Quiet   bool // -q
	Verbose bool // -v
	JSON    bool // --log-format json
	CI      string
	// NoRetryAnnotation and FailureAsWarning are --ci-retry-annotation none
	// and --ci-failure-annotation warning.
	NoRetryAnnotation bool
	FailureAsWarning  bool
	Scope             string // --scope
	WhenEmptyWait     bool   // --when-empty wait
	// ShowRetried: a retried attempt's stdout goes to stderr, framed (run
	// with the stdout of the last attempt only, written at the end).
	ShowRetried bool
	Report      string // --report FILE; "" without
}

// Name is the subcommand: run or wait.
func (p *Plan) Name() string {
	if p.Wait {
		return "wait"
	}
	return "run"
}

// log returns how o's run is told.
func (o *Options) log() Log {
	return Log{Quiet: o.Output.Quiet, Verbose: o.Output.Verbose, JSON: o.Output.LogFormat == "json", CI: o.CI,
		NoRetryAnnotation: o.CIRetryAnnotation == "none", FailureAsWarning: o.CIFailureAnnotation == "warning",
		Scope: o.Retry.Scope, WhenEmptyWait: o.Retry.WhenEmpty == "wait", Report: o.Output.Report}
}

// jmesWarnings returns the warnings of the JMESPath expressions of c's
// acceptors and of q, each after the name of its flag or waiter.
func jmesWarnings(c *acceptor.Chain, q *jmes.Query) []string {
	type warner interface{ Warnings() []string }
	var out []string
	for _, a := range c.Acceptors {
		if m, ok := a.Matcher.(warner); ok {
			for _, w := range m.Warnings() {
				out = append(out, a.Name+": "+w)
			}
		}
	}
	if q != nil {
		for _, w := range q.Warnings() {
			out = append(out, "--query "+q.Expression()+": "+w)
		}
	}
	return out
}

// Build validates c's options and builds the whole plan: the strategy, the
// source and what the sinks are told. It reads what the flags name
// (--waiter-file, --input and --data files, --cacert) and opens the
// --scope store and, last, the --log-file, which the plan's Close and
// LogFile close (Build closes them itself when it fails); it changes
// nothing in the process (see process.start).
func Build(c Command) (_ *Plan, err error) {
	o, out := c.options(), c.stdout()
	kind, err := o.Validate()
	if err != nil {
		return nil, err
	}
	if c.watch() {
		if err := o.watchConflicts(kind); err != nil {
			return nil, err
		}
	}
	if o.Given("output") && out.query == "" {
		return nil, exit.Usagef("--output: chooses how --query writes its result; give --query EXPR")
	}
	// A wait writes the last state it saw on stdout, unless -q.
	writesState := o.wait && !o.Output.Quiet
	p := &Plan{Close: func() {}, Stderr: iostreams.NewSharedStderr(o.IO.ErrOut), Wait: o.wait, IO: o.IO, Log: o.log(), QueryText: out.text}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	if p.State, err = o.stateStore(); err != nil {
		return nil, err
	}
	waiter, err := o.loadWaiter()
	if err != nil {
		return nil, err
	}

	attempts, maxTime := o.limits(waiter)
	bo, throttle, err := o.backoff(waiter)
	if err != nil {
		return nil, err
	}
	if o.Given("schedule") {
		sch, err := backoff.ParseSchedule(o.Delay.Schedule)
		if err != nil {
			return nil, exit.Usagef("%s: %q: %v", o.flagName("schedule"), o.Delay.Schedule, err)
		}
		bo, throttle = sch.Backoff, nil
		if !o.Given("attempts") {
			attempts = sch.Attempts
		}
	}

	chain, err := o.chain(waiter, kind)
	if err != nil {
		return nil, err
	}
	if o.wait && waiter == nil && len(o.Accept.List.specs) == 0 && !o.Readiness() {
		// (--tcp and --url need none: a connection accepted, a 2xx.)
		return nil, exit.Usagef("wait needs an acceptor (--success EXPR=VALUE, --success-exit CODES, …) or --waiter SERVICE:NAME (or --waiter-file and --waiter) to know when to stop; to re-run a command until it succeeds, use retry run")
	}
	if out.query != "" {
		if p.Query, err = jmes.NewQuery(out.query); err != nil {
			return nil, exit.Usagef("--query: %q: %v", out.query, err)
		}
	}
	for _, w := range jmesWarnings(chain, p.Query) {
		p.Warnings = append(p.Warnings, "warning: "+w)
	}

	bud, err := o.bucket(func(format string, args ...any) {
		if p.warn != nil {
			p.warn(format, args...)
		}
	})
	if err != nil {
		return nil, err
	}
	p.Close = bud.close
	if p.State != nil && p.State.Warning != "" {
		p.Warnings = append(p.Warnings, p.State.Warning)
	}
	if bud.warning != "" {
		p.Warnings = append(p.Warnings, bud.warning)
	}

	p.MaxTime = maxTime
	p.Strategy = &runner.Strategy{
		MaxAttempts:     attempts,
		MaxTime:         maxTime,
		AttemptTimeout:  o.Budget.AttemptTimeout,
		Chain:           chain,
		Backoff:         bo,
		ThrottleBackoff: throttle,
		MaxRetryAfter:   o.Delay.MaxRetryAfter,
		Bucket:          bud.bucket,
		Limiter:         bud.limiter,
		WaitForRefill:   o.Retry.WhenEmpty == "wait",
		Rand:            rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		Consecutive:     o.Budget.Consecutive,
		Stream:          c.watch(),
		// A wait stopped midway by --max-time or a signal writes the last
		// state it saw whole, not the stopped poll's partial output.
		KeepWhole: writesState,
		// The time retry waits is the retry budget's clock's (nil: the
		// real one; the tests' clock otherwise).
		Sleep: o.IO.BudgetSleep(),
	}
	if o.Output.Report != "" {
		p.Strategy.KeepTail = output.ReportTail + 1 // the report shows each attempt's tails, and whether they start a line
	}
	p.Kind = kind
	if o.wait && kind == acceptor.CommandAttempt && o.Process.KillAfter > 0 {
		// A wait's --max-time includes the stop's grace, as an SDK
		// waiter's deadline does: a poll that ignores SIGTERM is killed by
		// the deadline, not --kill-after past it. run's deadline stops an
		// attempt as timeout(1) does: SIGTERM then, the grace after.
		p.Strategy.StopGrace = o.Process.KillAfter
	}
	if err := o.source(p, len(o.Accept.List.exprs()) > 0 || (waiter != nil), out.live); err != nil {
		return nil, err
	}
	if o.wait {
		p.Final = writesState
	} else {
		p.Log.ShowRetried = p.Final
	}
	if p.State != nil {
		p.State.Identity, p.State.LockTTL, p.State.KillAfter = identity(o, p), lockTTL(o, p), o.Process.KillAfter
	}
	if err := o.onRetry(p); err != nil {
		return nil, err
	}
	if o.Output.Report != "" {
		// Found out now, not after the command ran.
		if err := writepolicy.Check(o.Output.Report); err != nil {
			return nil, exit.Usagef("%s: %v", o.flagName("report"), err)
		}
	}
	if err := o.checkFiles(p.State, bud.file); err != nil {
		return nil, err
	}
	if o.Output.LogFile != "" {
		// Last: a command line refused for another reason leaves the file
		// as it was.
		// A FIFO without a reader does not block here: the write policy
		// opens it in the background, and signals are handled meanwhile.
		f, err := writepolicy.Open(o.Output.LogFile)
		if err != nil {
			return nil, exit.Usagef("--log-file: %v", err)
		}
		p.LogFile = f
	}
	return p, nil
}

// limits returns the attempt limit and the time budget of the run: -n and
// --max-time, except that without -n a waiter's maximum of attempts
// (botocore's) is the limit, and then the run has no time budget unless
// --max-time is given: such a waiter is bounded by its attempts.
func (o *Options) limits(w *waitermodel.Model) (attempts int, maxTime time.Duration) {
	attempts, maxTime = o.Budget.Attempts, o.Budget.MaxTime
	if w != nil && !o.Given("attempts") && w.MaxAttempts > 0 {
		attempts = w.MaxAttempts
		if !o.Given("max-time") {
			maxTime = 0
		}
	}
	return attempts, maxTime
}

// Hooks are what the run's sinks give the strategy when it runs: where
// its events go, how it sleeps between attempts (unless the retry
// budget's clock does), where a problem during the run is reported, and,
// for --state, the sequence's attempt to make.
type Hooks struct {
	Observe func(runner.Event)
	Sleep   func(ctx context.Context, d time.Duration) error
	Warn    func(format string, args ...any)
	Resume  *runner.Resume
}

// Run runs the plan's strategy on its source with h until it ends or ctx
// is done, and returns the outcome. The plan itself is left as Build made
// it: h is given to a copy of its strategy.
func (p *Plan) Run(ctx context.Context, h Hooks) *runner.Outcome {
	p.warn = h.Warn
	s := *p.Strategy
	s.Observe, s.Resume = h.Observe, h.Resume
	if s.Sleep == nil {
		s.Sleep = h.Sleep
	}
	return s.Run(ctx, p.Source)
}
