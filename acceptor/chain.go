package acceptor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Matcher is the condition of an acceptor. Match looks at the attempt in env
// and reports whether it matches, with the value it saw (for logs and the
// report). A matcher that cannot evaluate (a JMESPath runtime error, stdout
// that is not JSON) does not match and says why in MatchResult.Warning.
type Matcher interface {
	Match(env *Env) MatchResult
}

// MatcherFunc adapts a function to a Matcher.
type MatcherFunc func(env *Env) MatchResult

// Match calls f(env).
func (f MatcherFunc) Match(env *Env) MatchResult { return f(env) }

// MatchResult is one matcher's answer for one attempt.
type MatchResult struct {
	Matched bool
	// Value is what the matcher looked at, as the log shows it: the exit
	// status, the error code, the JMESPath result as JSON, ….
	Value string
	// Detail, when set, explains a match in a full sentence, in the spirit of
	// botocore: `For expression "X" we matched expected path: "Y" at least once`.
	Detail string
	// Warning, when set, says why the matcher could not evaluate.
	Warning string
}

// Acceptor is one ordered rule: when Matcher matches, the run goes to State.
type Acceptor struct {
	State   State
	Matcher Matcher
	// Name says where the acceptor came from, as the user wrote it:
	// `--success-exit 0`, `waiter InstanceRunning #2 (pathAll …)`.
	Name string
	// Usage marks a failure acceptor whose match means the command line is
	// wrong, not the state it polls (a k8s: waiter over output that is not
	// JSON): the run ends with the usage status, 125.
	Usage bool
}

// Chain is an ordered list of acceptors with a fallback. It is safe to
// evaluate from one goroutine at a time.
type Chain struct {
	Acceptors []Acceptor

	// Fallback classifies an attempt that no acceptor matched. It returns the
	// directive and a short reason ("exit status 1", "HTTP 503"). A nil
	// Fallback is RunFallback.
	Fallback func(a *Attempt) (Directive, string)

	// Input, when non-nil, makes path acceptors see {"input": Input,
	// "output": stdout} (Smithy inputOutput matchers).
	Input any

	// Decode parses stdout into the document that path acceptors see. nil
	// means DecodeJSON. Empty stdout is never passed to Decode: it is {}.
	Decode func(r io.Reader) (any, error)

	// Shown, when non-nil, is how what a path acceptor saw is shown in
	// its Step, its Decision and every log: given the acceptor's expression
	// and the value, it returns the value to show (a secret path's value
	// hidden: Credentials.SecretAccessKey). nil shows values as they are.
	Shown func(expr, value string) string

	// literals: the required literals of the output acceptors, found in
	// one pass over each window; built at the first Evaluate.
	literals      *chainLiterals
	literalsBuilt bool
}

// Source says what made a Decision.
type Source int

// The sources of a decision. The zero value, NoSource, is the decision of an
// attempt nothing evaluated (the deadline or a signal stopped it): its
// Directive is NoDecision.
const (
	NoSource Source = iota
	// FromAcceptor: an acceptor matched; Decision.Acceptor is its index.
	FromAcceptor
	// FromFallback: no acceptor matched; the chain's fallback decided.
	FromFallback
	// FromRetrySafety: the runner turned a retry into a failure, because
	// the attempt must not be repeated (Attempt.RetryUnsafe).
	FromRetrySafety
)

func (s Source) String() string {
	switch s {
	case NoSource:
		return "none"
	case FromAcceptor:
		return "acceptor"
	case FromFallback:
		return "fallback"
	case FromRetrySafety:
		return "retry safety"
	}
	return "unknown"
}

// Decision is the outcome of evaluating a chain on one attempt.
type Decision struct {
	Directive Directive
	// Source says what decided: an acceptor, the fallback, the runner's
	// retry safety; NoSource when nothing did.
	Source Source
	// Acceptor is the index of the acceptor that matched when Source is
	// FromAcceptor; 0 otherwise.
	Acceptor int
	// Name is the matching acceptor's Name, or for people what else
	// decided (Source's String: "fallback", "retry safety"); code compares
	// Source, not Name.
	Name string
	// Value is what the deciding acceptor saw; for the fallback, its reason.
	Value string
	// Detail is the deciding matcher's explanation, if it gave one.
	Detail string
	// Trace lists every acceptor evaluated, in order, for -v.
	Trace []Step
	// Warnings lists what could not be evaluated, for the log.
	Warnings []string
	// Usage: the deciding acceptor is a Usage acceptor.
	Usage bool
}

// expressionMatcher is a matcher over an expression (a JMESPath path
// matcher): a Step records the expression.
type expressionMatcher interface {
	Matcher
	Expression() string
}

// Step is one evaluated acceptor in a Decision's trace.
type Step struct {
	Name    string
	State   State
	Matched bool
	Value   string
	// Expr is the expression of a matcher that has one (the JMESPath
	// expression of a path acceptor, by its Expression method), "" for others:
	// with Value, what a pending wait saw (Table.TableStatus = "CREATING").
	Expr string `json:",omitempty"`
}

// Evaluate runs the acceptors in order on a and returns the first decisive
// answer, or the fallback's. It never returns NoDecision.
func (c *Chain) Evaluate(a *Attempt) Decision {
	if !c.literalsBuilt {
		c.literals, c.literalsBuilt = newChainLiterals(c.Acceptors), true
	}
	env := &Env{Attempt: a, input: c.Input, decode: c.Decode, literals: c.literals}
	var d Decision
	seen := map[string]bool{}
	for i, acc := range c.Acceptors {
		r := acc.Matcher.Match(env)
		step := Step{Name: acc.Name, State: acc.State, Matched: r.Matched, Value: r.Value}
		if em, ok := acc.Matcher.(expressionMatcher); ok {
			step.Expr = em.Expression()
			if c.Shown != nil {
				if v := c.Shown(step.Expr, r.Value); v != r.Value {
					// The explanation quotes the expected value, which a
					// match makes the secret itself.
					step.Value, r.Value, r.Detail = v, v, ""
				}
			}
		}
		d.Trace = append(d.Trace, step)
		if r.Warning != "" && !seen[r.Warning] {
			// The same problem (stdout is not JSON) is reported once.
			seen[r.Warning] = true
			d.Warnings = append(d.Warnings, acc.Name+": "+r.Warning)
		}
		if r.Matched {
			d.Directive = acc.State.Directive()
			if d.Directive == RetryServer && a.TimedOut {
				// A retry acceptor that matched an attempt stopped by
				// --attempt-timeout (--retry-error timeout, or its exit
				// status 143) retries it for what it was: a timeout.
				d.Directive = RetryTimeout
			}
			d.Source, d.Acceptor = FromAcceptor, i
			d.Name = acc.Name
			d.Value = r.Value
			d.Detail = r.Detail
			d.Usage = acc.Usage
			return d
		}
	}
	fb := c.Fallback
	if fb == nil {
		fb = RunFallback
	}
	d.Directive, d.Value = fb(a)
	d.Source, d.Name = FromFallback, FromFallback.String()
	if d.Directive == NoDecision {
		d.Directive = Fail
	}
	return d
}

// Env is what a matcher sees: the attempt, and its stdout parsed as JSON on
// first use (once per evaluation, whatever the number of path acceptors).
type Env struct {
	Attempt *Attempt

	input  any
	decode func(io.Reader) (any, error)

	parsed bool
	doc    any
	docErr error

	literals *chainLiterals
	found    [2][]bool // which of literals' literals each window holds
}

// Input returns the chain's Input (nil when it has none): path matchers
// see {"input": Input, "output": stdout} in Document when it is set.
func (e *Env) Input() any { return e.input }

// ErrNotJSON wraps the error of stdout that does not parse as JSON.
var ErrNotJSON = errors.New("stdout is not JSON")

// Document returns the attempt's stdout parsed as JSON: empty (or all-blank)
// stdout is {}; with an input it is {"input": …, "output": …}. The result is
// computed once per Env. An error wraps ErrNotJSON.
func (e *Env) Document() (any, error) {
	if !e.parsed {
		e.parsed = true
		e.doc, e.docErr = e.parse()
		if e.docErr == nil && e.input != nil {
			e.doc = map[string]any{"input": e.input, "output": e.doc}
		}
	}
	return e.doc, e.docErr
}

func (e *Env) parse() (any, error) { return StdoutDocument(e.Attempt, e.decode) }

// StdoutDocument returns a's stdout parsed by decode (nil means
// DecodeJSON): empty (or all-blank) stdout is {} and is not passed to
// decode. An error wraps ErrNotJSON. Env.Document is StdoutDocument with
// the chain's Decode, wrapped with the chain's Input.
func StdoutDocument(a *Attempt, decode func(io.Reader) (any, error)) (any, error) {
	rc, err := a.OpenStdout()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	defer rc.Close()
	br := newPeekReader(rc)
	if br.blank() {
		return map[string]any{}, nil
	}
	if decode == nil {
		decode = DecodeJSON
	}
	v, err := decode(br)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	return v, nil
}

// DecodeJSON decodes one JSON document from r, numbers as float64, and
// refuses trailing data other than white space.
func DecodeJSON(r io.Reader) (any, error) {
	dec := json.NewDecoder(r)
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON document")
	}
	return v, nil
}

// peekReader lets parse tell blank input from a document without reading
// everything into memory.
type peekReader struct {
	r   io.Reader
	buf []byte
	err error
}

func newPeekReader(r io.Reader) *peekReader { return &peekReader{r: r} }

// blank reads until the first non-blank byte and reports whether there was
// none.
func (p *peekReader) blank() bool {
	chunk := make([]byte, 32*1024)
	for p.err == nil {
		n, err := p.r.Read(chunk)
		p.buf = append(p.buf, chunk[:n]...)
		p.err = err
		if len(bytes.TrimLeft(p.buf, " \t\r\n")) > 0 {
			return false
		}
	}
	return true
}

func (p *peekReader) Read(b []byte) (int, error) {
	if len(p.buf) > 0 {
		n := copy(b, p.buf)
		p.buf = p.buf[n:]
		return n, nil
	}
	if p.err != nil {
		return 0, p.err
	}
	return p.r.Read(b)
}

// Pending says what the first path acceptor saw in a successful attempt no
// acceptor matched, as `Table.TableStatus = "CREATING"`; "" when no path
// acceptor evaluated.
func (d *Decision) Pending() string {
	for _, s := range d.Trace {
		if s.Expr != "" && s.Value != "" {
			return s.Expr + " = " + s.Value
		}
	}
	return ""
}
