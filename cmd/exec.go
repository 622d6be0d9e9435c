package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/jmes"
	"github.com/retry-dev/retry/acceptor/waitermodel"
	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/runner"
	"github.com/retry-dev/retry/runner/command"
	"github.com/retry-dev/retry/runner/output"
	"github.com/retry-dev/retry/runner/redact"
)

// plan is everything a run needs, built and validated before the first
// attempt: nothing runs when building it fails.
type plan struct {
	strategy *runner.Strategy
	source   runner.Source
	closer   func()
	query    *jmes.Query
	final    bool // write the last attempt's stdout at the end
	http     bool
	// processes: the attempts are processes (a command), whose orphans
	// retry adopts (process.start).
	processes bool
	describe  []string // the command or URL as logs and the report show it, redacted
	// maxTime is the run's time budget as limits decided it, which the log
	// names: --max-time, or 0 (none) when a waiter's attempt limit bounds
	// the run.
	maxTime time.Duration
	logFile *os.File // --log-file, nil for stderr
	// warn reports a problem during the run (a failing scope store),
	// through the logger once it exists.
	warn   func(format string, args ...any)
	errOut *sharedStderr // retry's stderr, shared by the attempts and the log
}

// stderr returns retry's stderr as the attempts and the log share it.
func (p *plan) stderr() *sharedStderr { return p.errOut }

// runRetry validates o and runs it, writing on o.IO, and returns the
// outcome (nil when no strategy ran here: a usage error, --list-waiters, a
// --state invocation) and nil or the *exitError that carries the exit
// status, for exitCode to write and map. It never exits. Cancelling ctx
// with an *runner.Interrupt cause stops the run as that signal would.
func runRetry(ctx context.Context, o *Options) (*runner.Outcome, error) {
	if o.ListWaiters {
		return nil, listWaiters(o)
	}
	p, err := buildPlan(o)
	if err != nil {
		return nil, err
	}
	defer p.closer()
	if p.logFile != nil {
		defer p.logFile.Close()
	}
	if o.Insecure && p.http { // a security warning: printed even with -q
		newLogger(o, p).warn("--insecure: the server's TLS certificate is not verified; anyone on the path can read and change this call")
	}

	if o.State != "" {
		return nil, runDurable(ctx, o, p)
	}
	log := newLogger(o, p)
	out, code := execute(ctx, o, p, log)
	writeReportOrWarn(o, p, out, code, log)
	return out, exitFor(code)
}

// exitFor turns an exit status into Main's error.
func exitFor(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// execute starts o.proc's switches (signals cancel the run), runs the
// strategy of p, logged by log, until it ends or ctx is done, writes the
// final stdout, and returns the outcome and its exit status.
func execute(ctx context.Context, o *Options, p *plan, log *logger) (*runner.Outcome, int) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	o.proc.start(cancel, p, log)

	p.warn = log.warn
	// The end line waits for the final stdout, so that with 2>&1 the last
	// attempt's output comes before "gave up" or "succeeded", as it ran.
	var end *runner.Event
	p.strategy.Observe = func(e runner.Event) {
		if e.Kind == runner.EventEnd {
			end = &e
			return
		}
		log.observe(e)
	}
	p.strategy.Sleep = log.sleep
	out := p.strategy.Run(ctx, p.source)

	var finalErr error
	var broken *output.StreamError
	if p.final && out.End != runner.EndScheduled && !errors.As(out.Err, &broken) { // a broken stream stopped the run: nothing whole to write
		finalErr = writeFinal(o, p, out)
	}
	if end != nil {
		log.observe(*end)
	}
	if finalErr != nil {
		log.warn("%v", finalErr)
	}
	if last := out.Last(); last != nil && last.Result.Release != nil {
		last.Result.Release()
	}
	code := exitStatus(o, p, out)
	switch {
	case code != exitOK || finalErr == nil:
	case p.query != nil && !isWriteError(finalErr):
		code = exitFailure // the wait succeeded, but the projection asked for cannot be written
	case errors.As(out.Last().Result.Attempt.Err, new(*output.LimitError)):
		code = exitFailure // an acceptor took the cut attempt for a success; its output is not whole
	default:
		// Like cat: output that could not be written (a full device, a
		// closed pipe) or kept whole is an error, never exit 0.
		code = exitForStream(finalErr)
	}
	log.ci.finish(o, out, code, log.warn)
	return out, code
}

// writeReportOrWarn writes the --report file, if asked for.
func writeReportOrWarn(o *Options, p *plan, out *runner.Outcome, code int, log *logger) {
	if o.Report != "" {
		if err := writeReport(o, p, out, code); err != nil {
			log.warn("--report: %v", err)
		}
	}
}

// exitStatus maps an outcome to retry's exit status (SPEC "Exit status").
func exitStatus(o *Options, p *plan, out *runner.Outcome) int {
	last := out.Last()
	switch out.End {
	case runner.EndSuccess:
		return exitOK
	case runner.EndInterrupted:
		var intr *runner.Interrupt
		if errors.As(out.Err, &intr) {
			return 128 + int(intr.Signal)
		}
		return 128 + int(syscall.SIGTERM)
	case runner.EndDeadline:
		return exitTimeout
	case runner.EndScheduled:
		return exitTempFail
	}
	var broken *output.StreamError
	if errors.As(out.Err, &broken) {
		return exitForStream(broken)
	}
	if o.Wait {
		if out.End == runner.EndFailure {
			// A command that cannot be executed or was not found, when no
			// acceptor claimed it, exits 126/127 as in run (SPEC "Exit
			// status"), not 1: it is a broken command line, not a state.
			if last != nil && !p.http && last.Decision.Source != acceptor.FromAcceptor && last.Decision.Directive == acceptor.Fail {
				if a := last.Result.Attempt; a.NotStarted || a.ExitCode == exitNotExec || a.ExitCode == exitNotFound {
					return a.ExitCode
				}
			}
			return exitFailure
		}
		return exitTimeout // gave up: attempts, or an empty bucket
	}
	if last == nil {
		return exitFailure
	}
	a := last.Result.Attempt
	switch {
	case a.TimedOut:
		return exitTimeout
	case errors.As(a.Err, new(*output.StreamError)):
		return exitIOError // the body could not be kept whole
	case p.http:
		return exitFailure
	case errors.As(a.Err, new(*output.LimitError)):
		return exitFailure // retry stopped it: its status says nothing
	case a.ExitCode == 0:
		// A failure acceptor matched a zero exit status: still a failure.
		return exitFailure
	}
	return a.ExitCode
}

// buildPlan validates o and builds the strategy and the source. It reads
// what the flags name (--waiter-file, --input and --data files, --cacert)
// and opens the --scope store and, last, the --log-file, which the plan's
// closer and logFile close (buildPlan closes them itself when it fails); it
// changes nothing in the process (see process.start).
func buildPlan(o *Options) (_ *plan, err error) {
	kind, err := o.validate()
	if err != nil {
		return nil, err
	}
	p := &plan{closer: func() {}, errOut: &sharedStderr{w: o.IO.ErrOut}}
	defer func() {
		if err != nil {
			p.closer()
		}
	}()
	waiter, err := o.loadWaiter()
	if err != nil {
		return nil, err
	}

	attempts, maxTime := o.limits(waiter)
	bo, throttle, finalGrace, err := o.backoff(waiter)
	if err != nil {
		return nil, err
	}
	if o.given("schedule") {
		sch, err := backoff.ParseSchedule(o.Schedule)
		if err != nil {
			return nil, usageError("%s: %q: %v", o.flagName("schedule"), o.Schedule, err)
		}
		bo, throttle = sch.Backoff, nil
		if !o.given("attempts") {
			attempts = sch.Attempts
		}
	}

	chain, err := o.chain(waiter)
	if err != nil {
		return nil, err
	}
	if o.Wait && waiter == nil && len(o.Acceptors.specs) == 0 && o.TCP == "" && !o.given("tcp") {
		// (--tcp needs none: a connection accepted is the success state.)
		return nil, usageError("wait needs an acceptor (--success EXPR=VALUE, --success-exit CODES, …) or --waiter SERVICE:NAME (or --waiter-file and --waiter) to know when to stop; to re-run a command until it succeeds, use retry run")
	}
	if o.Query != "" {
		if p.query, err = jmes.NewQuery(o.Query); err != nil {
			return nil, usageError("--query: %q: %v", o.Query, err)
		}
	}

	bud, err := o.bucket(func(format string, args ...any) {
		if p.warn != nil {
			p.warn(format, args...)
		}
	})
	if err != nil {
		return nil, err
	}
	p.closer = bud.close

	keepTail := 0
	if o.Report != "" {
		keepTail = reportTailLimit // the report shows each attempt's tails
	}
	p.maxTime = maxTime
	p.strategy = &runner.Strategy{
		KeepTail:        keepTail,
		MaxAttempts:     attempts,
		MaxTime:         maxTime,
		AttemptTimeout:  o.AttemptTimeout,
		FinalGrace:      finalGrace,
		Chain:           chain,
		Backoff:         bo,
		ThrottleBackoff: throttle,
		MaxRetryAfter:   o.MaxRetryAfter,
		Bucket:          bud.bucket,
		Limiter:         bud.limiter,
		WaitForRefill:   o.WhenEmpty == "wait",
		Rand:            rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		Consecutive:     o.Consecutive,
	}
	if err := o.source(p, kind, len(o.Acceptors.exprs()) > 0 || (waiter != nil)); err != nil {
		return nil, err
	}
	if err := o.onRetry(p); err != nil {
		return nil, err
	}
	if o.Report != "" {
		// Found out now, not after the command ran.
		if err := checkReportWritable(o.Report); err != nil {
			return nil, usageError("%s: %v", o.flagName("report"), err)
		}
	}
	if o.LogFile != "" {
		// Last: a command line refused for another reason leaves the file
		// as it was.
		f, err := os.OpenFile(o.LogFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, usageError("--log-file: %v", err)
		}
		p.logFile = f
	}
	return p, nil
}

// limits returns the attempt limit and the time budget of the run: -n and
// --max-time, except that without -n a waiter's maximum of attempts
// (botocore's) is the limit, and then the run has no time budget unless
// --max-time is given: such a waiter is bounded by its attempts.
func (o *Options) limits(w *waitermodel.Model) (attempts int, maxTime time.Duration) {
	attempts, maxTime = o.Attempts, o.MaxTime
	if w != nil && !o.given("attempts") && w.MaxAttempts > 0 {
		attempts = w.MaxAttempts
		if !o.given("max-time") {
			maxTime = 0
		}
	}
	return attempts, maxTime
}

// backoff builds the backoff for ordinary retries and the one for
// throttling retries, and the waiter's final-poll grace.
func (o *Options) backoff(w *waitermodel.Model) (bo, throttle backoff.Backoff, grace time.Duration, err error) {
	kind, delay, maxDelay, jitter := o.Backoff, o.Delay, o.MaxDelay, o.Jitter
	if w != nil && !o.given("backoff") {
		if w.Smithy {
			kind = "waiter"
			if !o.given("delay") && w.MinDelay > 0 {
				delay = w.MinDelay
			}
			if !o.given("max-delay") && w.MaxDelay > 0 {
				maxDelay = w.MaxDelay
			}
		} else {
			kind = "constant"
			if !o.given("delay") {
				delay = w.Delay
			}
			if !o.given("jitter") {
				jitter = "none"
			}
		}
	}
	if !o.given("max-delay") && maxDelay < delay {
		maxDelay = delay // a default cap never contradicts the delay the user gave
	}
	if kind == "waiter" {
		// --delay 0: the Smithy formula degenerates to no delay at all.
		grace := o.AttemptTimeout
		if grace == 0 {
			grace = delay
		}
		wb := backoff.Waiter(delay, maxDelay)
		return wb, nil, grace, nil
	}
	if jitter == "" {
		jitter = defaultJitter(kind)
	}
	j, err := backoff.ParseJitter(jitter)
	if err != nil {
		return nil, nil, 0, usageError("--jitter: %q: %v", jitter, err)
	}
	base := func(d time.Duration) backoff.Backoff {
		var b backoff.Backoff
		switch kind {
		case "constant":
			b = backoff.Constant(d)
		case "linear":
			b = backoff.Linear(d)
		case "fibonacci":
			b = backoff.Fibonacci(d)
		case "decorrelated":
			return backoff.Decorrelated(d, maxDelay)
		default:
			b = backoff.Exponential(d, o.Multiplier)
		}
		return backoff.WithJitter(backoff.WithCap(b, maxDelay), j)
	}
	if strings.EqualFold(o.Mode, "adaptive") && !o.given("throttle-delay") {
		// The adaptive limiter already paces every send after a throttle
		// (at the rate CUBIC allows, shared by the scope): a 5s throttling
		// backoff on top of it only delays the retries the limiter would
		// let through, and leaves a throttled client of a storm last (with
		// the limiter's fleet start, bench/storm.sh's 50 clients against a
		// service admitting 10 req/s are all done in 5.5–6.2s, medians,
		// instead of 7.6s). An explicit --throttle-delay still wins.
		return base(delay), nil, 0, nil
	}
	return base(delay), base(max(delay, o.ThrottleDelay)), 0, nil
}

// chain builds the acceptor chain: flags in command-line order, then the
// waiter's acceptors, then the fallback of run or wait.
func (o *Options) chain(w *waitermodel.Model) (*acceptor.Chain, error) {
	c := &acceptor.Chain{Acceptors: o.Acceptors.acceptors(), Fallback: acceptor.RunFallback}
	if o.Wait {
		c.Fallback = acceptor.WaitFallback
	}
	if w != nil {
		c.Acceptors = append(c.Acceptors, w.Acceptors...)
	}
	if o.Input != "" {
		raw, err := loadArg(o.Input, o.IO.In)
		if err != nil {
			return nil, usageError("%s: %v", o.flagName("input"), err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, usageError("%s: want JSON or @FILE holding JSON: %v", o.flagName("input"), err)
		}
		c.Input = v
	}
	if len(o.Acceptors.exprs()) > 0 || w != nil {
		c.Decode = jmes.DecoderFor(c)
	}
	return c, nil
}

// source builds the source of kind's attempts: the command, the HTTP call
// or the TCP connect.
func (o *Options) source(p *plan, kind attemptKind, needJSON bool) error {
	switch kind {
	case tcpAttempt:
		return o.tcpSource(p)
	case httpAttempt:
		return o.httpSource(p)
	}
	argv, err := o.argv()
	if err != nil {
		return err
	}
	p.describe = redact.Argv(argv)
	var pattern *regexp.Regexp
	if o.ErrorPattern != "" {
		if pattern, err = regexp.Compile(o.ErrorPattern); err != nil {
			return usageError("--error-pattern: %q: want an RE2 regular expression: %s", o.ErrorPattern, regexpProblem(err))
		}
		if pattern.NumSubexp() < 1 {
			return usageError("--error-pattern: %q: want a regexp with a capture group for the error code, like 'code=(\\w+)'", o.ErrorPattern)
		}
	}
	live := o.Stdout == "live" || (o.Stdout == "" && !o.Wait && o.IO.StdoutIsTerminal)
	killAfter := o.KillAfter
	if killAfter == 0 {
		killAfter = -1 // --kill-after 0: SIGKILL at once
	}
	c := &command.Command{
		Argv:         argv,
		Foreground:   o.Foreground,
		KillAfter:    killAfter,
		Stdin:        o.IO.stdinFile(),
		Stderr:       p.stderr().child(),
		ErrorPattern: pattern,
		KeepStdout:   needJSON,
		MaxOutput:    o.MaxOutput,
	}
	if live {
		c.Stdout = o.IO.Out
	}
	p.final = !live
	p.processes = true
	p.source = c
	closeBudget := p.closer
	p.closer = func() { c.Close(); closeBudget() }
	return nil
}

// argv turns the arguments into the command to run: argv as given, one
// string split by shell-word rules, or the shell with --shell.
func (o *Options) argv() ([]string, error) {
	args := o.Args
	if len(args) == 0 {
		return nil, usageError("no command: give COMMAND [ARG...], 'COMMAND STRING', --shell 'STRING' or --url URL")
	}
	if strings.TrimSpace(args[0]) == "" {
		return nil, usageError("empty command: give COMMAND [ARG...], 'COMMAND STRING', --shell 'STRING' or --url URL")
	}
	if o.Shell {
		if len(args) != 1 {
			return nil, usageError("--shell: give the shell command as one argument, quoted: --shell 'a && b' (got %d arguments)", len(args))
		}
		return []string{o.ShellPath, "-c", args[0]}, nil
	}
	if len(args) == 1 && strings.ContainsAny(args[0], " \t\n") {
		argv, err := splitCommand(args[0])
		if err != nil {
			return nil, usageError("%v", err)
		}
		return argv, nil
	}
	return args, nil
}

// writeFinal writes the last attempt's stdout (wait: or its --query
// projection) to stdout.
func writeFinal(o *Options, p *plan, out *runner.Outcome) error {
	last := out.Last()
	if last == nil || (o.Wait && o.Quiet) {
		return nil
	}
	var cut *output.LimitError
	if errors.As(last.Result.Attempt.Err, &cut) {
		// A consumer cannot tell a cut stdout from a whole one: nothing of
		// it is written, and the run never exits 0.
		return fmt.Errorf("stdout of attempt %d not written: %v, and a cut stdout is not the attempt's output", last.Number, cut)
	}
	if p.query != nil {
		apply := p.query.ApplyAttempt
		if o.Output == "text" {
			apply = p.query.ApplyAttemptText
		}
		b, err := apply(last.Result.Attempt)
		if err != nil {
			return fmt.Errorf("--query: %v", err)
		}
		if _, err = o.IO.Out.Write(b); err != nil {
			return &output.StreamError{Stream: "stdout", Err: err}
		}
		return nil
	}
	if p.http && !httpSucceeded(o, out) {
		// As curl -f: a failed call's body is not the output.
		return writeBody(o, p, last)
	}
	rc, err := last.Result.OpenStdout()
	if err != nil {
		return &output.StreamError{Stream: "stdout", Keeping: true, Err: err}
	}
	defer rc.Close()
	if _, err = io.Copy(o.IO.Out, rc); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && pe.Op == "read" {
			return &output.StreamError{Stream: "stdout", Keeping: true, Err: err}
		}
		return &output.StreamError{Stream: "stdout", Err: err}
	}
	return nil
}
