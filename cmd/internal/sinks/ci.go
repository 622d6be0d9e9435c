package sinks

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/human"
	"github.com/retry-dev/retry/cmd/internal/writepolicy"
	"github.com/retry-dev/retry/runner"
)

// ResolveCI turns --ci into a system. auto follows the environment
// (GITHUB_ACTIONS=true, GITLAB_CI=true), except on a terminal: a person
// watching needs neither workflow commands nor section markers. An explicit
// github or gitlab always wins.
func ResolveCI(mode string, getenv func(string) string, terminal bool) CISystem {
	switch mode {
	case "github":
		return CIGitHub
	case "gitlab":
		return CIGitLab
	case "none":
		return CINone
	}
	if terminal {
		return CINone
	}
	switch {
	case getenv("GITHUB_ACTIONS") == "true":
		return CIGitHub
	case getenv("GITLAB_CI") == "true":
		return CIGitLab
	}
	return CINone
}

// CISystem names the CI system whose log conventions retry follows.
type CISystem int

// The CI systems: none, GitHub Actions, GitLab CI.
const (
	CINone CISystem = iota
	CIGitHub
	CIGitLab
)

// CIConfig is what the CI markup knows of the run.
type CIConfig struct {
	System CISystem
	Quiet  bool // -q: no groups and no annotations; outputs and summary still written
	Wait   bool // the run is a wait: a poll that is simply not done yet is no warning
	// NoRetryAnnotation (--ci-retry-annotation none): a retried attempt is
	// its log line only, no warning annotation.
	NoRetryAnnotation bool
	// FailureAsWarning (--ci-failure-annotation warning): a run that does
	// not succeed is a warning annotation, not an error (a step that is
	// allowed to fail).
	FailureAsWarning bool
	// Getenv reads the CI system's variables (GITHUB_OUTPUT,
	// GITHUB_STEP_SUMMARY).
	Getenv func(string) string
}

// CI writes the CI system's markup around retry's own lines: a
// collapsible group or section per attempt, a warning annotation per
// retried attempt and an error annotation when the run does not succeed
// (GitHub), and at the end the step outputs and the summary table (GitHub).
// Its markup goes to the process's stderr, where the attempts' stderr and
// retry's lines go, so that it never mixes into a command's stdout that a
// step redirects. A nil *CI does nothing.
type CI struct {
	cfg   CIConfig
	w     io.Writer // stderr
	lines *Lines    // its lock: one line at a time; warnings
	open  int       // the attempt whose group is open, 0 for none
	// maxAttempts is the run's attempt limit, as the events carry it.
	maxAttempts int
}

// NewCI returns the CI markup written on w (the log's view of the shared
// stderr: markup always starts a line, and never goes into a --log-file),
// or nil when cfg names no CI system.
func NewCI(cfg CIConfig, lines *Lines, w io.Writer) *CI {
	if cfg.System == CINone {
		return nil
	}
	return &CI{cfg: cfg, w: w, lines: lines}
}

// Before is the sink that goes before the log: it opens an attempt's
// group. nil for a nil c.
func (c *CI) Before() Sink {
	if c == nil {
		return nil
	}
	return ciPhase{c, false}
}

// After is the sink that goes after the log: it closes an attempt's group
// (retry's lines for the attempt are inside it) and annotates. nil for a
// nil c.
func (c *CI) After() Sink {
	if c == nil {
		return nil
	}
	return ciPhase{c, true}
}

type ciPhase struct {
	c     *CI
	after bool
}

func (p ciPhase) Observe(e runner.Event) {
	p.c.maxAttempts = e.MaxAttempts
	if p.after {
		p.c.after(e)
	} else {
		p.c.before(e)
	}
}

func (c *CI) label(n int) string { return human.AttemptLabel(n, c.maxAttempts) }

func (c *CI) notYet(r *runner.Record) bool { return human.NotYet(c.cfg.Wait, r) }

// before runs before the logger handles e: it opens an attempt's group.
func (c *CI) before(e runner.Event) {
	if c == nil || c.cfg.Quiet || e.Kind != runner.EventAttemptStart {
		return
	}
	c.lines.Lock()
	defer c.lines.Unlock()
	c.open = e.Attempt
	switch c.cfg.System {
	case CIGitHub:
		fmt.Fprintf(c.w, "::group::%s\n", echo.Untrusted(c.label(e.Attempt)).WorkflowData())
	case CIGitLab:
		fmt.Fprintf(c.w, "\x1b[0Ksection_start:%d:retry_attempt_%d[collapsed=true]\r\x1b[0K%s\n",
			e.Time.Unix(), e.Attempt, gitlabText(c.label(e.Attempt)))
	}
}

// after runs after the logger handled e: it closes an attempt's group
// (retry's lines for the attempt are inside it), annotates a retried
// attempt, and annotates a run that did not succeed.
func (c *CI) after(e runner.Event) {
	if c == nil || c.cfg.Quiet {
		return
	}
	c.lines.Lock()
	defer c.lines.Unlock()
	switch e.Kind {
	case runner.EventAttemptEnd:
		r := e.Record
		if c.open == r.Number {
			switch c.cfg.System {
			case CIGitHub:
				fmt.Fprint(c.w, "::endgroup::\n")
			case CIGitLab:
				fmt.Fprintf(c.w, "\x1b[0Ksection_end:%d:retry_attempt_%d\r\x1b[0K\n", e.Time.Unix(), r.Number)
			}
			c.open = 0
		}
		// A retried attempt is a warning; a wait's poll that is merely not
		// done yet is what waiting is, and no warning; nor is a success that
		// --consecutive follows with another attempt.
		if c.cfg.System == CIGitHub && !c.cfg.NoRetryAnnotation && r.Retried && !c.notYet(r) && !human.Waiting(c.cfg.Wait, r.Decision) && r.Decision.Directive.IsRetry() {
			msg := echo.Sprintf("%s: %s: %s [%s]; next attempt in %s", c.label(r.Number), human.Result(r), r.Decision.Directive, human.DecidedBy(r.Decision), human.Duration(r.Delay))
			fmt.Fprintf(c.w, "::warning title=retry::%s\n", msg.WorkflowData())
		}
	case runner.EventEnd:
		if c.cfg.System == CIGitHub && e.Outcome.End != runner.EndSuccess && e.Outcome.End != runner.EndScheduled {
			msg := ciEndMessage(e.Outcome)
			if c.cfg.FailureAsWarning {
				fmt.Fprintf(c.w, "::warning title=retry::%s\n", msg.WorkflowData())
			} else {
				fmt.Fprintf(c.w, "::error title=retry::%s\n", msg.WorkflowData())
			}
		}
	}
}

// ciEndMessage says why a run did not succeed, for the error annotation:
// "gave up after 3 attempts (attempts exhausted); last attempt: exit status
// 1, retry (server-side) [no acceptor matched]".
func ciEndMessage(out *runner.Outcome) echo.Untrusted {
	n := human.AttemptCount(out)
	var s string
	switch out.End {
	case runner.EndFailure:
		s = fmt.Sprintf("failed on attempt %d", n)
	case runner.EndInterrupted:
		s = fmt.Sprintf("interrupted after %s", human.Plural(n, "attempt"))
	default:
		s = fmt.Sprintf("gave up after %s (%s)", human.Plural(n, "attempt"), out.End)
	}
	if out.Err != nil && out.End != runner.EndFailure {
		s += ": " + out.Err.Error()
	}
	if last := out.Last(); last != nil {
		s += "; last attempt: " + human.Result(last)
		if d := last.Decision; d.Directive != acceptor.NoDecision {
			s += fmt.Sprintf(", %s [%s]", d.Directive, human.DecidedBy(d))
		}
	}
	return echo.Untrusted(s)
}

// Name says what the CI sink writes at the end of a run.
func (c *CI) Name() string { return "the CI's step outputs and summary" }

// Finish writes the step outputs and the summary table (GitHub) of a run
// that made attempts, once the exit status is known: an EndSink. Problems
// writing them are warnings: the run's exit status stays the run's, and
// Finish returns nil.
//
// The files are appended to by the write policy (a symbolic link followed,
// a FIFO written through); waiting for a FIFO's reader ends when done is
// closed. The summary is redacted: it repeats what attempts said.
func (c *CI) Finish(e End) error {
	if c == nil || c.cfg.System != CIGitHub || e.Outcome == nil {
		return nil
	}
	command, out, code, done := e.Command, e.Outcome, e.Status, e.Done
	if path := c.cfg.Getenv("GITHUB_OUTPUT"); path != "" {
		var b strings.Builder
		for _, kv := range [][2]string{
			{"attempts", fmt.Sprint(human.AttemptCount(out))},
			{"exit-code", fmt.Sprint(code)},
			{"outcome", out.End.String()},
		} {
			writeOutput(&b, kv[0], kv[1])
		}
		// Numbers and an outcome's word, between random delimiters: the
		// heredoc of $GITHUB_OUTPUT, which redaction must leave whole.
		if err := writepolicy.Append(path, []byte(echo.Raw(b.String())), 0o644, done); err != nil {
			c.lines.Warn("GITHUB_OUTPUT: %v", err)
		}
	}
	if path := c.cfg.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
		if err := writepolicy.Append(path, []byte(stepSummary(command, out, code, c.cfg.Wait, c.notYet).String()), 0o644, done); err != nil {
			c.lines.Warn("GITHUB_STEP_SUMMARY: %v", err)
		}
	}
	return nil
}

// writeOutput writes one step output in the heredoc form of $GITHUB_OUTPUT,
// with a random delimiter so that no value can end it early.
func writeOutput(b *strings.Builder, name, value string) {
	var r [16]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	delim := "ghadelimiter_" + hex.EncodeToString(r[:])
	fmt.Fprintf(b, "%s<<%s\n%s\n%s\n", name, delim, value, delim)
}

// stepSummary is the Markdown table of attempts for $GITHUB_STEP_SUMMARY.
// A wait's poll that is not done yet says so, with the value it saw.
func stepSummary(command string, out *runner.Outcome, code int, wait bool, notYet func(*runner.Record) bool) echo.Untrusted {
	var b strings.Builder
	fmt.Fprintf(&b, "### retry %s: %s after %s, exit status %d\n\n", command, out.End, human.Plural(human.AttemptCount(out), "attempt"), code)
	// Columns: the attempt's result (exit status, HTTP status, error), the
	// directive with its reason ("retry (server-side)"), and who decided
	// it (an acceptor, "no acceptor matched", what stopped the attempt).
	b.WriteString("| attempt | duration | result | directive | decided by | delay |\n")
	b.WriteString("|---:|---:|---|---|---|---:|\n")
	for i := range out.Attempts {
		r := &out.Attempts[i]
		directive, decidedBy := "stopped", ""
		switch {
		case notYet(r):
			directive, decidedBy = "not yet", "no acceptor matched"
			if p := r.Decision.Pending(); p != "" {
				decidedBy += ": " + p
			}
		case r.Decision.Directive != acceptor.NoDecision:
			directive = human.DirectiveText(wait, r.Decision)
			decidedBy = human.DecidedBy(r.Decision)
		case r.Result.Stopped != nil:
			decidedBy = r.Result.Stopped.Error()
		}
		delay := "–"
		if r.Retried {
			delay = human.Duration(r.Delay)
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s |\n", r.Number, human.Duration(r.Duration),
			markdownCell(human.Result(r)), markdownCell(directive), markdownCell(decidedBy), delay)
	}
	b.WriteString("\n")
	return echo.Untrusted(b.String())
}

// markdownCell keeps text inside one table cell and out of Markdown and
// HTML: pipes, backslashes and markup characters escaped, line breaks as
// spaces.
func markdownCell(s string) string {
	r := strings.NewReplacer(
		"\\", "\\\\", "|", "\\|", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]",
		"<", "&lt;", ">", "&gt;", "&", "&amp;", "\r\n", " ", "\n", " ", "\r", " ")
	return r.Replace(s)
}

// gitlabText keeps a section header on its line: control characters (line
// breaks, escapes) become spaces.
func gitlabText(s string) echo.Untrusted {
	return echo.Untrusted(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s))
}
