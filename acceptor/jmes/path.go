package jmes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jmespath/go-jmespath"

	"github.com/retry-dev/retry/acceptor"
)

// PathMode says how a path matcher compares the result of its JMESPath
// expression with the expected value.
type PathMode int

// The path modes.
const (
	// Path matches when the result equals the expected value (--success
	// EXPR[=VALUE], botocore "path", Smithy stringEquals and booleanEquals).
	Path PathMode = iota
	// PathAll matches when the result is a non-empty array whose every
	// element equals the expected value (--success-all, botocore "pathAll",
	// Smithy allStringEquals).
	PathAll
	// PathAny matches when the result is an array with at least one element
	// equal to the expected value (--success-any, botocore "pathAny", Smithy
	// anyStringEquals).
	PathAny
)

// String returns the botocore name of the mode: "path", "pathAll" or
// "pathAny".
func (m PathMode) String() string {
	switch m {
	case PathAll:
		return "pathAll"
	case PathAny:
		return "pathAny"
	}
	return "path"
}

// maxShownValue bounds the JSON a path matcher shows as its
// acceptor.MatchResult.Value.
const maxShownValue = 200

// Scope says which document a path matcher evaluates its expression on.
type Scope int

// The scopes.
const (
	// ScopeDocument: what acceptor.Env.Document returns ({"input", "output"}
	// when the chain has an Input, else stdout). Flags and botocore models;
	// the scope of a new PathMatch.
	ScopeDocument Scope = iota
	// ScopeOutput: stdout only, even when the chain has an Input (Smithy
	// "output" matchers).
	ScopeOutput
	// ScopeInputOutput: always {"input": …, "output": …}; without an Input
	// in the chain, input is {} (Smithy "inputOutput" matchers).
	ScopeInputOutput
)

// PathMatch is a JMESPath acceptor condition: the expression, compiled, the
// expected value and the mode. Build one with PathMatcher or
// NewPathMatcher; it is safe for concurrent use.
//
// It sees only attempts that did not fail (acceptor.Attempt.Failed false); on a
// failed attempt it does not match and has nothing to say. Stdout that is
// not JSON, a JMESPath runtime error (length(null)) and an internal failure
// of the JMESPath library do not match either, and say why in
// acceptor.MatchResult.Warning.
type PathMatch struct {
	expr     *jmesExpr
	mode     PathMode
	expected any
	scope    Scope
}

// PathMatcher builds the matcher of a --success/--failure/--retry flag
// (mode Path), of a -all flag (PathAll) or of an -any flag (PathAny) from
// its argument EXPR[=VALUE]. EXPR ends at the last "=" that is not part of
// "==", "!=", "<=" or ">=" and not inside a JMESPath literal; VALUE is a
// JSON literal when it parses as one (a backquoted one too), else the
// string itself, trimmed (splitPathArg and parseExpected say it exactly).
//
// In Path mode, an argument without =VALUE matches when EXPR yields true
// (the JSON boolean, not a truthy value). PathAll and PathAny need =VALUE.
// The expression is compiled here: a bad one is an error, as is an empty
// one.
func PathMatcher(arg string, mode PathMode) (acceptor.Matcher, error) {
	expr, value, hasValue := splitPathArg(arg)
	var expected any = true
	if hasValue {
		expected = parseExpected(value)
	} else if mode != Path {
		// In the flags' words (the caller names the flag and quotes arg).
		what := "every"
		if mode == PathAny {
			what = "some"
		}
		return nil, fmt.Errorf("want EXPR=VALUE: %s element of the array EXPR yields must equal VALUE (%s=true)", what, arg)
	}
	m, err := NewPathMatcher(expr, mode, expected)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// NewPathMatcher compiles expr and returns the matcher that compares its
// result with expected under mode. expected is a JSON value as
// encoding/json decodes one into an any: nil, bool, float64, string,
// []any, map[string]any; other types never compare equal to anything.
func NewPathMatcher(expr string, mode PathMode, expected any) (*PathMatch, error) {
	if mode < Path || mode > PathAny {
		return nil, fmt.Errorf("unknown path mode %d", int(mode))
	}
	e, err := compileJMESPath(expr)
	if err != nil {
		return nil, err
	}
	return &PathMatch{expr: e, mode: mode, expected: expected}, nil
}

// SetScope sets the document the matcher evaluates its expression on
// (ScopeDocument until then). Call it before the matcher is first used.
func (m *PathMatch) SetScope(s Scope) { m.scope = s }

// Expression returns the JMESPath expression as written.
func (m *PathMatch) Expression() string { return m.expr.src }

// Warnings says, one line each, where the expression uses a deprecated
// syntax that is read anyway (a bare word in backquotes, `Ready`, read as
// the string "Ready").
func (m *PathMatch) Warnings() []string { return m.expr.warnings }

// Mode returns the matcher's mode.
func (m *PathMatch) Mode() PathMode { return m.mode }

// Expected returns the value the result is compared with.
func (m *PathMatch) Expected() any { return m.expected }

// Match evaluates the expression on the attempt's stdout parsed as JSON and
// compares the result with the expected value. Value is the result as
// compact JSON, cut to about 200 bytes; Detail, on a match, why it
// matched (explanation).
func (m *PathMatch) Match(env *acceptor.Env) acceptor.MatchResult {
	if env == nil || env.Attempt == nil || env.Attempt.Failed {
		return acceptor.MatchResult{}
	}
	doc, err := env.Document()
	if err != nil {
		return acceptor.MatchResult{Warning: err.Error()}
	}
	doc = m.scopeDoc(env, doc)
	v, err := m.expr.search(doc)
	if err != nil {
		return acceptor.MatchResult{Warning: fmt.Sprintf("evaluating %q: %v", m.expr.src, err)}
	}
	if m.scope == ScopeInputOutput || (m.scope == ScopeDocument && env.Input() != nil) {
		in := env.Input()
		if in == nil {
			in = map[string]any{}
		}
		if ev, ok := m.expr.exactAgain(v, env.Attempt, in); ok {
			v = ev
		}
	} else if ev, ok := m.expr.exactAgain(v, env.Attempt, nil); ok {
		v = ev
	}
	r := acceptor.MatchResult{Value: shownJSON(v, maxShownValue)}
	switch m.mode {
	case Path:
		r.Matched = jsonEqual(v, m.expected)
	case PathAll:
		arr, ok := v.([]any)
		r.Matched = ok && len(arr) > 0
		for _, e := range arr {
			if !jsonEqual(e, m.expected) {
				r.Matched = false
				break
			}
		}
	case PathAny:
		arr, _ := v.([]any)
		for _, e := range arr {
			if jsonEqual(e, m.expected) {
				r.Matched = true
				break
			}
		}
	}
	if r.Matched {
		r.Detail = m.explanation()
	}
	return r
}

// explanation says in retry's words why the matcher matched: `Stack.Status
// is "FAILED"`, `some element of Items[].State is "terminated"`, `every
// element of …`. (botocore says "For expression … we matched expected
// path"; the expected value here is JSON, so true is not "true".)
func (m *PathMatch) explanation() string {
	want := shownJSON(m.expected, maxShownValue)
	switch m.mode {
	case PathAll:
		return fmt.Sprintf("every element of %s is %s", m.expr.src, want)
	case PathAny:
		return fmt.Sprintf("some element of %s is %s", m.expr.src, want)
	}
	return fmt.Sprintf("%s is %s", m.expr.src, want)
}

// scopeDoc returns the document the matcher's scope addresses, given the
// chain's document doc.
func (m *PathMatch) scopeDoc(env *acceptor.Env, doc any) any {
	switch m.scope {
	case ScopeOutput:
		if env.Input() != nil {
			if w, ok := doc.(map[string]any); ok {
				return w["output"]
			}
		}
	case ScopeInputOutput:
		if sd, ok := doc.(*streamedDoc); ok {
			doc = sd.doc // the results streamed are of expressions on stdout alone
		}
		if env.Input() == nil {
			return map[string]any{"input": map[string]any{}, "output": doc}
		}
	}
	return doc
}

// String describes the matcher as a waiter's acceptor name does:
// `pathAll "Reservations[].Instances[].State.Name" = "running"`.
func (m *PathMatch) String() string { return m.Describe(m.mode.String()) }

// Describe is String with comparator in place of the mode (a Smithy
// model's `allStringEquals "…" = "running"`): the expected value is shown
// as compact JSON cut to about 200 bytes.
func (m *PathMatch) Describe(comparator string) string {
	return fmt.Sprintf("%s %q = %s", comparator, m.expr.src, shownJSON(m.expected, maxShownValue))
}

// SplitPathArg is splitPathArg: the argument of a path flag as EXPR and
// VALUE (hasValue false when it has no =VALUE), for a log that names it.
func SplitPathArg(arg string) (expr, value string, hasValue bool) { return splitPathArg(arg) }

// splitPathArg splits the argument of a path flag, EXPR[=VALUE], at the last
// "=" that is not part of "==", "!=", "<=" or ">=" and not inside a JMESPath
// literal (`…` JSON, '…' raw string, "…" quoted identifier, each with its
// backslash escapes). Without such a "=", the whole argument is EXPR and
// hasValue is false. An unterminated literal runs to the end of arg.
func splitPathArg(arg string) (expr, value string, hasValue bool) {
	last := -1
	var quote byte // the delimiter of the literal we are in, or 0
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++ // skip the escaped byte
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '`', '\'', '"':
			quote = c
		case '=':
			prevOp := i > 0 && strings.IndexByte("=!<>", arg[i-1]) >= 0
			nextEq := i+1 < len(arg) && arg[i+1] == '='
			if nextEq {
				i++ // "==": both bytes belong to the operator
				continue
			}
			if !prevOp {
				last = i
			}
		}
	}
	if last < 0 {
		return arg, "", false
	}
	return arg[:last], arg[last+1:], true
}

// parseExpected reads the VALUE of a path flag: a JSON literal when it
// parses as one (true, 3, 1.5, "x", null, [1], {"a":1}; numbers become
// float64, but integers of magnitude 2^53 or more stay exact, exact.go),
// else the string itself with blanks around it trimmed ("running"). Write
// "\"true\"" to compare with the string true, and "\" x\"" for a string with
// blanks around it. A backquoted VALUE (`1`, `"x"`, as JMESPath writes
// literals) is the JSON literal between the backquotes; when that is not
// JSON it is the string between them.
func parseExpected(s string) any {
	if t := strings.TrimSpace(s); len(t) >= 2 && t[0] == '`' && t[len(t)-1] == '`' {
		inner := t[1 : len(t)-1]
		if v, err := decodeExact([]byte(inner)); err == nil {
			return v
		}
		return strings.TrimSpace(inner)
	}
	if v, err := decodeExact([]byte(s)); err == nil {
		return v
	}
	return strings.TrimSpace(s)
}

// jsonEqual compares two JSON values by JSON type: strings with strings,
// booleans with booleans, numbers as numbers (float64, or exactly when one
// is an exactInt), arrays and objects deeply.
// There is no coercion: "1" is not 1, true is not 1.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case float64:
		if be, ok := b.(exactInt); ok {
			return exactEqual(be, a)
		}
		bf, ok := b.(float64)
		return ok && a == bf
	case exactInt:
		return exactEqual(a, b)
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], bs[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// jmesExpr is a compiled JMESPath expression, with its source.
type jmesExpr struct {
	src string
	jp  *jmespath.JMESPath
	// exact: the expression passes numbers through (exact.go), so its
	// result can be computed again with exact integers; exactDec holds
	// the decoders that do, built at first use.
	exact    bool
	exactDec exactDecoders
	// warnings says where src was read differently from what the library
	// reads (see fixSource).
	warnings []string
}

// maxExprLen bounds an expression: the parser recurses once per nesting
// level, so a huge one could exhaust the stack.
const maxExprLen = 64 << 10

// compileJMESPath compiles src as the JMESPath specification reads it
// (fixSource says where the library reads it otherwise). Unlike
// jmespath.Compile it never panics
// (the library does on some inputs, `a\u0080` among them), refuses an empty
// expression, and checks function names and argument counts now rather
// than at the first evaluation (`lenght(a)`, `@(a)` and `length(a, b)`
// would fail on every attempt).
func compileJMESPath(src string) (e *jmesExpr, err error) {
	if strings.TrimSpace(src) == "" {
		return nil, errors.New("empty JMESPath expression")
	}
	if len(src) > maxExprLen {
		return nil, fmt.Errorf("JMESPath expression of %d bytes: the limit is %d", len(src), maxExprLen)
	}
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, fmt.Errorf("invalid JMESPath expression %q: the parser failed (%v)", src, r)
		}
	}()
	fixed, err := fixSource(src)
	if err != nil {
		return nil, err
	}
	ast, err := jmespath.NewParser().Parse(fixed.lexical)
	if err != nil {
		return nil, jmesSyntaxError(src, err)
	}
	if err := checkFunctions(ast); err != nil {
		return nil, fmt.Errorf("invalid JMESPath expression %q: %v", src, err)
	}
	jp, err := jmespath.Compile(fixed.program)
	if err != nil {
		return nil, jmesSyntaxError(src, err)
	}
	return &jmesExpr{src: src, jp: jp, warnings: fixed.warnings, exact: passesNumbersThrough(fixed.lexical)}, nil
}

// jmesSyntaxError words a parse error of src, with its offset.
func jmesSyntaxError(src string, err error) error {
	var se jmespath.SyntaxError
	if errors.As(err, &se) {
		msg := strings.TrimPrefix(se.Error(), "SyntaxError: ")
		return fmt.Errorf("invalid JMESPath expression %q: %s at offset %d", src, msg, se.Offset)
	}
	return fmt.Errorf("invalid JMESPath expression %q: %v", src, err)
}

// search evaluates e on doc. A panic inside the library is an error.
func (e *jmesExpr) search(doc any) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("the JMESPath library failed: %v", r)
		}
	}()
	if sd, ok := doc.(*streamedDoc); ok {
		if r, ok := sd.results[e.src]; ok {
			if r.err != nil {
				return nil, r.err
			}
			return r.v, nil
		}
		doc = sd.doc
	}
	return e.jp.Search(doc)
}

// checkFunctions walks a parsed expression and refuses calls of unknown
// functions, with the wrong number of arguments, or of something that is
// not a name (`@(a)`, which makes the library panic), and slices with a step
// of 0 (`[::0]`), which are an error on every document.
func checkFunctions(ast jmespath.ASTNode) error {
	n, ok := rootNode(ast)
	if !ok {
		return nil // not the AST we know: the library checks at run time
	}
	var walk func(n astNode) error
	walk = func(n astNode) error {
		if step, ok := n.sliceStep(); ok && step == 0 {
			// A step of 0 fails on every document ([::0]): refuse it now.
			return errors.New("a slice step cannot be 0")
		}
		if n.kind() == int64(jmespath.ASTFunctionExpression) {
			name, ok := n.str()
			if !ok {
				return errors.New("only a function name can be called")
			}
			lo, hi, known := jmesFunctionArity(name)
			if !known {
				return fmt.Errorf("unknown function %s()", name)
			}
			args := len(n.children())
			if args < lo || (hi >= 0 && args > hi) {
				want := strconv.Itoa(lo)
				if hi < 0 {
					want = "at least " + want
				}
				return fmt.Errorf("%s() takes %s argument(s), not %d", name, want, args)
			}
		}
		for _, c := range n.children() {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(n)
}

// shownJSON writes v as compact JSON for logs, cut after about limit bytes
// with "…"; a limit ≤ 0 means no limit. Object keys are sorted and nothing
// is HTML-escaped. Values that are not JSON (NaN, a JMESPath expression
// reference) are written in Go syntax.
func shownJSON(v any, limit int) string {
	var b bytes.Buffer
	w := jsonWriter{b: &b, limit: limit}
	w.value(v)
	s := b.String()
	if limit > 0 && len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// jsonWriter writes JSON values as encoding/json does (sorted keys;
// scalars are encoding/json's own) but without HTML escaping, and stops
// early once past limit, so showing a large document costs what is shown:
// the 200 bytes a path matcher shows of a 2000-instance describe-instances
// document take about 8 µs here and 20 ms or more through encoding/json, which
// encodes everything first (BenchmarkShownJSON). Unbounded (--query), it
// is about 1.4× slower than encoding/json on that document (26 ms against
// 19 ms). It records values that JSON cannot hold (NaN, an
// expression reference) in bad, which encoding/json would reject or write
// as {}.
type jsonWriter struct {
	b     *bytes.Buffer
	limit int
	bad   string
}

func (w *jsonWriter) full() bool { return w.limit > 0 && w.b.Len() > w.limit }

func (w *jsonWriter) value(v any) {
	if w.full() {
		return
	}
	switch v := v.(type) {
	case nil:
		w.b.WriteString("null")
	case bool:
		w.b.WriteString(strconv.FormatBool(v))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			w.bad = strconv.FormatFloat(v, 'g', -1, 64)
			w.b.WriteString(w.bad)
			return
		}
		writeJSONScalar(w.b, v)
	case string:
		writeJSONScalar(w.b, v)
	case exactInt:
		w.b.WriteString(string(v))
	case []any:
		w.b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.value(e)
			if w.full() {
				return
			}
		}
		w.b.WriteByte(']')
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		w.b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.b.WriteByte(',')
			}
			writeJSONScalar(w.b, k)
			w.b.WriteByte(':')
			w.value(v[k])
			if w.full() {
				return
			}
		}
		w.b.WriteByte('}')
	default:
		w.bad = fmt.Sprintf("%T", v)
		fmt.Fprintf(w.b, "%v", v)
	}
}

// writeJSONScalar writes a string or a number as encoding/json does,
// without HTML escaping; the trailing newline of Encode is dropped.
func writeJSONScalar(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		b.Truncate(b.Len() - 1)
	}
}
