package acceptor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/jmespath/go-jmespath"
)

// This file builds, for a set of JMESPath expressions, only the parts of a
// JSON document they can observe, and a streaming decoder that builds those
// parts and skips the rest. On an 80 MB describe-instances output polled for
// Reservations[].Instances[].State.Name, that is a few map entries per
// instance instead of the whole document.
//
// The analysis works on "needs": what of a value an expression observes.
//
//   - nil: nothing; the value may be left out.
//   - full: everything; the value is built as DecodeJSON builds it.
//   - otherwise the value's JSON type is observed (null or not, object or
//     array, …) and a scalar is kept whole; an object keeps only the keys in
//     fields (each with its need) or, with all set, every key (each with
//     all's need); an array keeps every element, each with the elems need
//     (at least its type), so lengths and indexes do not change.
//
// For every expression e and document d, e(prune(d, need(e))) = e(d): the
// analysis walks the expression from its result (full: it is compared and
// shown) back to its input, node by node, keeping whatever a node can
// observe. Truthiness observes the emptiness of objects (all keys), a
// comparison with a scalar literal only the type and scalar value of the
// other side, length() only the number of elements or keys. Functions keep
// what their argument type checks look at, so errors do not change either.
// Anything the analysis does not know (merge, to_string, a node type of a
// future library version) needs everything below it.

// need is what an expression observes of a value; see above. A need is
// never modified once built.
type need struct {
	full   bool
	fields map[string]*need
	elems  *need
	all    *need
}

// empty reports whether n observes the value's type only.
func (n *need) empty() bool {
	return !n.full && len(n.fields) == 0 && n.elems == nil && n.all == nil
}

// analyzer computes needs. It holds the shared needs and the token numbers
// of the library's == and != comparators.
type analyzer struct {
	full   *need // everything
	typ    *need // the type only
	truthy *need // what JMESPath truthiness looks at
	eq, ne int64
	ok     bool // the library's AST has the expected shape
}

func newAnalyzer() *analyzer {
	an := &analyzer{full: &need{full: true}, typ: &need{}}
	an.truthy = &need{all: an.typ}
	var ok1, ok2 bool
	an.eq, ok1 = comparatorToken("a==b")
	an.ne, ok2 = comparatorToken("a!=b")
	an.ok = ok1 && ok2
	return an
}

// comparatorToken returns the token number the library stores in the
// comparator node of src.
func comparatorToken(src string) (tok int64, ok bool) {
	defer func() {
		if recover() != nil {
			tok, ok = 0, false
		}
	}()
	ast, err := jmespath.NewParser().Parse(src)
	if err != nil {
		return 0, false
	}
	n, ok := asASTNode(reflect.ValueOf(ast))
	if !ok || n.kind() != int64(jmespath.ASTComparator) {
		return 0, false
	}
	return n.intValue()
}

func (an *analyzer) merge(a, b *need) *need {
	switch {
	case a == nil || a == b:
		return b
	case b == nil:
		return a
	case a.full || b.full:
		return an.full
	case a.empty():
		return b
	case b.empty():
		return a
	}
	r := &need{elems: an.merge(a.elems, b.elems), all: an.merge(a.all, b.all)}
	if len(a.fields)+len(b.fields) > 0 {
		r.fields = make(map[string]*need, len(a.fields)+len(b.fields))
		for k, v := range a.fields {
			r.fields[k] = v
		}
		for k, v := range b.fields {
			r.fields[k] = an.merge(r.fields[k], v)
		}
	}
	return r
}

// field is the need on the value of key k of an object under need n.
func (an *analyzer) field(n *need, k string) *need {
	switch {
	case n == nil:
		return nil
	case n.full:
		return an.full
	}
	return an.merge(n.fields[k], n.all)
}

// elem is the need on each element of an array under need n: at least its
// type, since a kept array keeps every element.
func (an *analyzer) elem(n *need) *need {
	switch {
	case n == nil:
		return nil
	case n.full:
		return an.full
	case n.elems == nil:
		return an.typ
	}
	return n.elems
}

// needOf returns what expression src observes of the document it is
// applied to; everything when src cannot be parsed or analyzed.
func (an *analyzer) needOf(src string) (n *need) {
	if !an.ok || len(src) > maxExprLen {
		return an.full
	}
	defer func() {
		if recover() != nil {
			n = an.full
		}
	}()
	ast, err := jmespath.NewParser().Parse(src)
	if err != nil {
		return an.full
	}
	root, ok := asASTNode(reflect.ValueOf(ast))
	if !ok {
		return an.full
	}
	return an.walk(root, an.full)
}

// walk returns the need on the input of node x given the need r on its
// result (nil: the result is not observed, but errors still must not
// change).
func (an *analyzer) walk(x astNode, r *need) *need {
	c := x.children()
	switch x.kind() {
	case int64(jmespath.ASTIdentity), int64(jmespath.ASTCurrentNode):
		return r
	case int64(jmespath.ASTLiteral), int64(jmespath.ASTExpRef):
		return nil // neither reads its input (functions handle expression references)
	case int64(jmespath.ASTField):
		name, ok := x.str()
		if !ok {
			return an.full
		}
		if r == nil {
			return nil
		}
		return &need{fields: map[string]*need{name: r}}
	case int64(jmespath.ASTSubexpression), int64(jmespath.ASTIndexExpression), int64(jmespath.ASTPipe):
		for i := len(c) - 1; i >= 0; i-- {
			r = an.walk(c[i], r)
		}
		return r
	case int64(jmespath.ASTIndex):
		if r == nil {
			return nil
		}
		return &need{elems: r}
	case int64(jmespath.ASTSlice):
		if r == nil {
			return nil
		}
		return &need{elems: an.elem(r)}
	case int64(jmespath.ASTProjection):
		if len(c) != 2 {
			return an.full
		}
		var rn *need
		if r != nil {
			rn = an.elem(r) // results are collected when not null: their type counts
		}
		e := an.walk(c[1], rn)
		if r == nil && e == nil {
			return an.walk(c[0], nil)
		}
		return an.walk(c[0], &need{elems: e})
	case int64(jmespath.ASTFlatten):
		if len(c) != 1 {
			return an.full
		}
		if r == nil {
			return an.walk(c[0], nil)
		}
		en := an.elem(r)
		return an.walk(c[0], &need{elems: an.merge(en, &need{elems: en})})
	case int64(jmespath.ASTFilterProjection):
		if len(c) != 3 {
			return an.full
		}
		var rn *need
		if r != nil {
			rn = an.elem(r)
		}
		e := an.merge(an.walk(c[2], an.truthy), an.walk(c[1], rn))
		if r == nil && e == nil {
			return an.walk(c[0], nil)
		}
		return an.walk(c[0], &need{elems: e})
	case int64(jmespath.ASTValueProjection):
		if len(c) != 2 {
			return an.full
		}
		var rn *need
		if r != nil {
			rn = an.elem(r)
		}
		e := an.walk(c[1], rn)
		if r == nil && e == nil {
			return an.walk(c[0], nil)
		}
		// Every key counts: the library projects one extra null per key.
		return an.walk(c[0], &need{all: an.merge(e, an.typ)})
	case int64(jmespath.ASTComparator):
		if len(c) != 2 {
			return an.full
		}
		op, _ := x.intValue()
		ln, rn := an.full, an.full
		if op != an.eq && op != an.ne {
			ln, rn = an.typ, an.typ // ordering: numbers only, kept whole
		} else {
			if c[1].scalarLiteral() {
				ln = an.typ
			}
			if c[0].scalarLiteral() {
				rn = an.typ
			}
		}
		return an.merge(an.walk(c[0], ln), an.walk(c[1], rn))
	case int64(jmespath.ASTOrExpression), int64(jmespath.ASTAndExpression):
		if len(c) != 2 {
			return an.full
		}
		return an.merge(an.walk(c[0], an.merge(r, an.truthy)), an.walk(c[1], r))
	case int64(jmespath.ASTNotExpression):
		if len(c) != 1 {
			return an.full
		}
		return an.walk(c[0], an.truthy)
	case int64(jmespath.ASTMultiSelectList):
		var in *need
		for _, ch := range c {
			in = an.merge(in, an.walk(ch, an.elem(r)))
		}
		if r != nil || in != nil {
			in = an.merge(in, an.typ) // null input gives null
		}
		return in
	case int64(jmespath.ASTMultiSelectHash):
		var in *need
		for _, kv := range c {
			key, ok := kv.str()
			kc := kv.children()
			if !ok || kv.kind() != int64(jmespath.ASTKeyValPair) || len(kc) != 1 {
				return an.full
			}
			in = an.merge(in, an.walk(kc[0], an.field(r, key)))
		}
		if r != nil || in != nil {
			in = an.merge(in, an.typ)
		}
		return in
	case int64(jmespath.ASTFunctionExpression):
		name, ok := x.str()
		if !ok {
			return an.full
		}
		return an.function(name, c, r)
	}
	return an.full
}

// function returns the need on the input of a call of name with args,
// given the need r on its result.
func (an *analyzer) function(name string, args []astNode, r *need) *need {
	var in *need
	each := func(n *need) *need {
		for _, a := range args {
			in = an.merge(in, an.walk(a, n))
		}
		return in
	}
	exprefBody := func(a astNode) (astNode, bool) {
		c := a.children()
		if a.kind() != int64(jmespath.ASTExpRef) || len(c) != 1 {
			return astNode{}, false
		}
		return c[0], true
	}
	arrayOfTypes := &need{elems: an.typ}
	switch name {
	case "length", "keys":
		return each(an.truthy) // the number of elements or keys
	case "abs", "ceil", "floor", "to_number", "type", "starts_with", "ends_with":
		return each(an.typ)
	case "avg", "sum", "max", "min", "sort":
		return each(arrayOfTypes) // arrays of scalars: their elements are kept whole
	case "join":
		if len(args) == 2 {
			return an.merge(an.walk(args[0], an.typ), an.walk(args[1], arrayOfTypes))
		}
	case "contains":
		// The library compares elements with ==: scalars by value, and
		// (panicking) maps or slices by type, which pruning keeps.
		if len(args) == 2 {
			return an.merge(an.walk(args[0], arrayOfTypes), an.walk(args[1], an.typ))
		}
	case "not_null":
		return each(an.merge(r, an.typ))
	case "to_array":
		if r == nil {
			return each(an.typ)
		}
		return each(an.merge(r, an.merge(an.elem(r), an.typ)))
	case "reverse":
		if r == nil {
			return each(an.typ)
		}
		return each(&need{elems: an.elem(r)})
	case "sort_by", "min_by", "max_by":
		if len(args) == 2 {
			if body, ok := exprefBody(args[1]); ok {
				e := an.walk(body, an.typ)
				if r != nil {
					if name == "sort_by" {
						e = an.merge(e, an.elem(r))
					} else {
						e = an.merge(e, r)
					}
				}
				return an.walk(args[0], &need{elems: e})
			}
		}
	case "map":
		if len(args) == 2 {
			if body, ok := exprefBody(args[0]); ok {
				return an.walk(args[1], &need{elems: an.walk(body, an.elem(r))})
			}
		}
	}
	return each(an.full) // merge, values, to_string, and anything unusual
}

// PathSet is what a set of JMESPath expressions can observe of a JSON
// document: the paths to keep when decoding it. Build one with
// NeededPaths.
type PathSet struct {
	an   *analyzer
	root *need
}

// NeededPaths analyzes exprs and returns what they observe, together, of
// the document they are applied to. An expression that does not compile is
// an error; one the analysis cannot follow (say `to_string(@)`) needs the
// whole document. No expressions observe nothing.
func NeededPaths(exprs []string) (*PathSet, error) {
	an := newAnalyzer()
	var root *need
	for _, src := range exprs {
		if _, err := compileJMESPath(src); err != nil {
			return nil, err
		}
		root = an.merge(root, an.needOf(src))
	}
	return &PathSet{an: an, root: root}, nil
}

// Everything reports whether the whole document is needed.
func (p *PathSet) Everything() bool { return p.root != nil && p.root.full }

// Field returns what p observes of the value of key in the document, as a
// PathSet for that value: for expressions over {"input": …, "output": …},
// Field("output") is what they observe of the output.
func (p *PathSet) Field(key string) *PathSet {
	return &PathSet{an: p.an, root: p.an.field(p.root, key)}
}

// String writes the set compactly: * for everything, {key:…} for the keys
// of an object ({**:…} for every key), […] for array elements, _ for the
// type only; "" for nothing. The paths of
// Reservations[].Instances[].State.Name are
// {Reservations:[{Instances:[{State:{Name:*}}]}]}.
func (p *PathSet) String() string {
	var b strings.Builder
	writeNeed(&b, p.root)
	return b.String()
}

func writeNeed(b *strings.Builder, n *need) {
	switch {
	case n == nil:
		return
	case n.full:
		b.WriteByte('*')
		return
	case n.empty():
		b.WriteByte('_')
		return
	}
	if len(n.fields) > 0 || n.all != nil {
		keys := make([]string, 0, len(n.fields))
		for k := range n.fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if isPlainKey(k) {
				b.WriteString(k)
			} else {
				b.WriteString(strconv.Quote(k))
			}
			b.WriteByte(':')
			writeNeed(b, n.fields[k])
		}
		if n.all != nil {
			if len(keys) > 0 {
				b.WriteByte(',')
			}
			b.WriteString("**:")
			writeNeed(b, n.all)
		}
		b.WriteByte('}')
	}
	if n.elems != nil {
		b.WriteByte('[')
		writeNeed(b, n.elems)
		b.WriteByte(']')
	}
}

func isPlainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Decoder returns a decoder that builds only the parts of a document in p
// and skips the rest, for Chain.Decode. It accepts and refuses exactly the
// documents DecodeJSON does (syntax, trailing data, nesting deeper than
// 10000, numbers beyond float64, in the skipped parts too), and builds
// the kept parts exactly as DecodeJSON does. Every key of p that the
// document lacks is simply absent.
func (p *PathSet) Decoder() func(io.Reader) (any, error) {
	root := p.root
	if root == nil {
		root = p.an.typ
	}
	pl := buildPlan(p.an, root, map[*need]*plan{})
	return func(r io.Reader) (any, error) { return decodePlan(r, pl) }
}

// NewDecoder returns a Chain.Decode function that builds only what exprs
// can observe of stdout. With wrapped set, the expressions are evaluated on
// {"input": …, "output": stdout} (the chain has an Input) and only what they
// observe of "output" is built. An element of exprs may also be the
// argument of a path flag, EXPR=VALUE: it counts as EXPR. An expression
// that does not compile or that the analysis cannot follow makes the
// decoder build everything, as DecodeJSON does; so does a nil or empty
// exprs.
func NewDecoder(exprs []string, wrapped bool) func(io.Reader) (any, error) {
	if len(exprs) == 0 {
		return decodeAll
	}
	exprs = append([]string(nil), exprs...)
	for i, e := range exprs {
		if _, err := compileJMESPath(e); err != nil {
			if expr, _, ok := SplitPathArg(e); ok {
				exprs[i] = expr
			}
		}
	}
	p, err := NeededPaths(exprs)
	if err != nil {
		return decodeAll
	}
	if wrapped {
		p = p.Field("output")
	}
	return p.Decoder()
}

// DecoderFor returns a Chain.Decode function for c: it builds only what c's
// path matchers (PathMatch, from PathMatcher, NewPathMatcher or a waiter
// model) and the given queries can observe of stdout, taking c.Input and
// the matchers' scopes (Smithy output and inputOutput) into account.
// Queries are applied to stdout itself. Matchers of other kinds are assumed
// not to read Env.Document: a custom matcher that does sees the pruned
// document.
func DecoderFor(c *Chain, queries ...*Query) func(io.Reader) (any, error) {
	an := newAnalyzer()
	var stdout *need
	wrapped := c.Input != nil
	for _, acc := range c.Acceptors {
		m, ok := acc.Matcher.(*PathMatch)
		if !ok {
			continue
		}
		n := an.needOf(m.expr.src)
		if m.scope == scopeInputOutput || (m.scope == scopeDocument && wrapped) {
			n = an.field(n, "output")
		}
		stdout = an.merge(stdout, n)
	}
	for _, q := range queries {
		if q != nil {
			stdout = an.merge(stdout, an.needOf(q.expr.src))
		}
	}
	return (&PathSet{an: an, root: stdout}).Decoder()
}

// plan is a need compiled for decoding.
type plan struct {
	full  bool
	keys  []planKey      // the kept keys of an object, for few keys
	index map[string]int // positions in keys, for many keys
	other *plan          // for keys not listed; nil: skip them
	elem  *plan          // for array elements; nil only when full
}

type planKey struct {
	name string
	p    *plan
}

func buildPlan(an *analyzer, n *need, memo map[*need]*plan) *plan {
	if p, ok := memo[n]; ok {
		return p
	}
	p := &plan{}
	memo[n] = p
	if n.full {
		p.full = true
		return p
	}
	keys := make([]string, 0, len(n.fields))
	for k := range n.fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p.keys = append(p.keys, planKey{k, buildPlan(an, an.merge(n.fields[k], n.all), memo)})
	}
	if len(p.keys) > 8 {
		p.index = make(map[string]int, len(p.keys))
		for i, k := range p.keys {
			p.index[k.name] = i
		}
	}
	if n.all != nil {
		p.other = buildPlan(an, n.all, memo)
	}
	p.elem = buildPlan(an, an.elem(n), memo)
	return p
}

// lookup returns the plan for the value of key (raw, unescaped bytes) and
// the key as a string when the plan holds it, or false to skip the value.
func (p *plan) lookup(key []byte) (q *plan, name string, kept bool) {
	if p.index != nil {
		if i, ok := p.index[string(key)]; ok {
			return p.keys[i].p, p.keys[i].name, true
		}
	} else {
		for i := range p.keys {
			if string(key) == p.keys[i].name {
				return p.keys[i].p, p.keys[i].name, true
			}
		}
	}
	return p.other, "", p.other != nil
}

// decodeAll decodes everything, as DecodeJSON does.
func decodeAll(r io.Reader) (any, error) { return decodePlan(r, nil) }

// maxJSONDepth is encoding/json's limit on nesting.
const maxJSONDepth = 10000

// jsonDecoder reads one JSON document from a stream and builds the parts a
// plan keeps. A nil plan means everything. Positions in buf before pos are
// consumed; keep, when not -1, is the start of a token whose bytes must
// survive refills.
type jsonDecoder struct {
	r     io.Reader
	buf   []byte
	pos   int
	keep  int
	base  int64 // stream offset of buf[0]
	eof   bool
	rerr  error
	depth int
	strs  map[string]any // short strings and keys seen, boxed once
}

func decodePlan(r io.Reader, p *plan) (any, error) {
	d := &jsonDecoder{r: r, buf: make([]byte, 0, 128<<10), keep: -1, strs: map[string]any{}}
	if p != nil && p.full {
		p = nil
	}
	v, err := d.value(p)
	if err != nil {
		return nil, err
	}
	if c, ok := d.peek(); ok {
		return nil, d.invalid(c, "after top-level value")
	}
	if d.rerr != nil {
		return nil, d.rerr
	}
	return v, nil
}

// fill reads more input, keeping the bytes from min(pos, keep) on. It
// reports false at the end of the input or on a read error.
func (d *jsonDecoder) fill() bool {
	if d.eof || d.rerr != nil {
		return false
	}
	start := d.pos
	if d.keep >= 0 && d.keep < start {
		start = d.keep
	}
	if start > 0 {
		n := copy(d.buf, d.buf[start:])
		d.buf = d.buf[:n]
		d.pos -= start
		if d.keep >= 0 {
			d.keep -= start
		}
		d.base += int64(start)
	}
	if len(d.buf) == cap(d.buf) {
		nb := make([]byte, len(d.buf), 2*cap(d.buf))
		copy(nb, d.buf)
		d.buf = nb
	}
	for range 100 {
		n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		if err == io.EOF {
			d.eof = true
		} else if err != nil {
			d.rerr = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
	d.rerr = io.ErrNoProgress
	return false
}

// ensure makes n bytes from pos available.
func (d *jsonDecoder) ensure(n int) bool {
	for len(d.buf)-d.pos < n {
		if !d.fill() {
			return false
		}
	}
	return true
}

// peek skips white space and returns the next byte, not consuming it.
func (d *jsonDecoder) peek() (byte, bool) {
	for {
		b := d.buf
		for i := d.pos; i < len(b); i++ {
			switch b[i] {
			case ' ', '\t', '\n', '\r':
				continue
			}
			d.pos = i
			return b[i], true
		}
		d.pos = len(b)
		if !d.fill() {
			return 0, false
		}
	}
}

// end is the error of input that ends inside a value.
func (d *jsonDecoder) end() error {
	if d.rerr != nil {
		return d.rerr
	}
	return errors.New("unexpected end of JSON input")
}

func (d *jsonDecoder) invalid(c byte, context string) error {
	return fmt.Errorf("invalid character %s %s (offset %d)", quoteByte(c), context, d.base+int64(d.pos))
}

func quoteByte(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

func (d *jsonDecoder) push() error {
	d.depth++
	if d.depth > maxJSONDepth {
		return fmt.Errorf("exceeded max depth (offset %d)", d.base+int64(d.pos))
	}
	return nil
}

// value decodes the value at pos under plan p (nil: everything).
func (d *jsonDecoder) value(p *plan) (any, error) {
	c, ok := d.peek()
	if !ok {
		return nil, d.end()
	}
	switch {
	case c == '{':
		return d.object(p)
	case c == '[':
		return d.array(p)
	case c == '"':
		raw, plain, err := d.scanString(true)
		d.keep = -1
		if err != nil {
			return nil, err
		}
		if plain {
			return d.intern(raw[1 : len(raw)-1]), nil
		}
		return unquoteJSON(raw, false)
	case c == 't' || c == 'f' || c == 'n':
		return d.literal()
	case c == '-' || c >= '0' && c <= '9':
		raw, _, err := d.scanNumber()
		d.keep = -1
		if err != nil {
			return nil, err
		}
		return parseJSONNumber(raw)
	}
	return nil, d.invalid(c, "looking for beginning of value")
}

func (d *jsonDecoder) object(p *plan) (any, error) {
	d.pos++
	if err := d.push(); err != nil {
		return nil, err
	}
	m := map[string]any{}
	c, ok := d.peek()
	if !ok {
		return nil, d.end()
	}
	if c == '}' {
		d.pos++
		d.depth--
		return m, nil
	}
	for {
		if c != '"' {
			return nil, d.invalid(c, "looking for beginning of object key string")
		}
		raw, plain, err := d.scanString(true)
		if err != nil {
			d.keep = -1
			return nil, err
		}
		child, kept := p, true
		var key string
		if plain {
			k := raw[1 : len(raw)-1]
			if p != nil {
				child, key, kept = p.lookup(k)
			}
			if kept && key == "" {
				key = d.intern(k).(string)
			}
		} else {
			k, err := unquoteJSON(raw, false)
			if err != nil {
				d.keep = -1
				return nil, err
			}
			key = k.(string)
			if p != nil {
				child, _, kept = p.lookup([]byte(key))
			}
		}
		d.keep = -1
		if c, ok = d.peek(); !ok {
			return nil, d.end()
		}
		if c != ':' {
			return nil, d.invalid(c, "after object key")
		}
		d.pos++
		if kept {
			if child != nil && child.full {
				child = nil
			}
			v, err := d.value(child)
			if err != nil {
				return nil, err
			}
			m[key] = v
		} else if err := d.skip(); err != nil {
			return nil, err
		}
		if c, ok = d.peek(); !ok {
			return nil, d.end()
		}
		switch c {
		case ',':
			d.pos++
			if c, ok = d.peek(); !ok {
				return nil, d.end()
			}
			continue
		case '}':
			d.pos++
			d.depth--
			return m, nil
		}
		return nil, d.invalid(c, "after object key:value pair")
	}
}

func (d *jsonDecoder) array(p *plan) (any, error) {
	d.pos++
	if err := d.push(); err != nil {
		return nil, err
	}
	arr := []any{}
	c, ok := d.peek()
	if !ok {
		return nil, d.end()
	}
	if c == ']' {
		d.pos++
		d.depth--
		return arr, nil
	}
	var ep *plan
	if p != nil && !p.elem.full {
		ep = p.elem
	}
	for {
		v, err := d.value(ep)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		if c, ok = d.peek(); !ok {
			return nil, d.end()
		}
		switch c {
		case ',':
			d.pos++
			continue
		case ']':
			d.pos++
			d.depth--
			return arr, nil
		}
		return nil, d.invalid(c, "after array element")
	}
}

// skip checks the syntax of the value at pos and consumes it without
// building anything.
func (d *jsonDecoder) skip() error {
	c, ok := d.peek()
	if !ok {
		return d.end()
	}
	switch {
	case c == '{':
		d.pos++
		if err := d.push(); err != nil {
			return err
		}
		if c, ok = d.peek(); !ok {
			return d.end()
		}
		if c == '}' {
			d.pos++
			d.depth--
			return nil
		}
		for {
			if c != '"' {
				return d.invalid(c, "looking for beginning of object key string")
			}
			if _, _, err := d.scanString(false); err != nil {
				return err
			}
			if c, ok = d.peek(); !ok {
				return d.end()
			}
			if c != ':' {
				return d.invalid(c, "after object key")
			}
			d.pos++
			if err := d.skip(); err != nil {
				return err
			}
			if c, ok = d.peek(); !ok {
				return d.end()
			}
			if c == ',' {
				d.pos++
				if c, ok = d.peek(); !ok {
					return d.end()
				}
				continue
			}
			if c == '}' {
				d.pos++
				d.depth--
				return nil
			}
			return d.invalid(c, "after object key:value pair")
		}
	case c == '[':
		d.pos++
		if err := d.push(); err != nil {
			return err
		}
		if c, ok = d.peek(); !ok {
			return d.end()
		}
		if c == ']' {
			d.pos++
			d.depth--
			return nil
		}
		for {
			if err := d.skip(); err != nil {
				return err
			}
			if c, ok = d.peek(); !ok {
				return d.end()
			}
			if c == ',' {
				d.pos++
				continue
			}
			if c == ']' {
				d.pos++
				d.depth--
				return nil
			}
			return d.invalid(c, "after array element")
		}
	case c == '"':
		_, _, err := d.scanString(false)
		return err
	case c == 't' || c == 'f' || c == 'n':
		_, err := d.literal()
		return err
	case c == '-' || c >= '0' && c <= '9':
		raw, check, err := d.scanNumber()
		d.keep = -1
		if err == nil && check {
			_, err = parseJSONNumber(raw)
		}
		return err
	}
	return d.invalid(c, "looking for beginning of value")
}

// scanString consumes the string at pos (at its opening quote). With keep,
// it returns the raw bytes, quotes included, valid until the caller resets
// d.keep to -1; plain reports that they hold neither escapes nor non-ASCII
// bytes (the content is the string as is).
func (d *jsonDecoder) scanString(keep bool) (raw []byte, plain bool, err error) {
	if keep {
		d.keep = d.pos
	}
	plain = true
	var high byte
	i := d.pos + 1
	for {
		b := d.buf
		for i < len(b) {
			c := b[i]
			if c >= 0x20 && c != '"' && c != '\\' {
				high |= c
				i++
				continue
			}
			switch c {
			case '"':
				d.pos = i + 1
				if keep {
					raw = d.buf[d.keep:d.pos]
				}
				return raw, plain && high < 0x80, nil
			case '\\':
				plain = false
				d.pos = i
				if !d.ensure(2) {
					return nil, false, d.end()
				}
				switch d.buf[d.pos+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					i = d.pos + 2
				case 'u':
					if !d.ensure(6) {
						return nil, false, d.end()
					}
					for j := 2; j < 6; j++ {
						if !isHex(d.buf[d.pos+j]) {
							d.pos += j
							return nil, false, d.invalid(d.buf[d.pos], "in \\u hexadecimal character escape")
						}
					}
					i = d.pos + 6
				default:
					d.pos++
					return nil, false, d.invalid(d.buf[d.pos], "in string escape code")
				}
				b = d.buf
				continue
			}
			d.pos = i
			return nil, false, d.invalid(c, "in string literal")
		}
		d.pos = i
		if !d.fill() {
			return nil, false, d.end()
		}
		i = d.pos
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scanNumber consumes the number at pos, checking its syntax, and returns
// its bytes (valid until d.keep is reset). check reports a number that
// strconv.ParseFloat may refuse as out of range (an exponent, or more than
// 308 bytes): DecodeJSON refuses those, so the decoder checks even the
// skipped ones.
func (d *jsonDecoder) scanNumber() (raw []byte, check bool, err error) {
	d.keep = d.pos
	at := func() (byte, bool) {
		if d.pos < len(d.buf) || d.fill() {
			return d.buf[d.pos], true
		}
		return 0, false
	}
	digits := func() int {
		n := 0
		for {
			c, ok := at()
			if !ok || c < '0' || c > '9' {
				return n
			}
			d.pos++
			n++
		}
	}
	c, _ := at()
	if c == '-' {
		d.pos++
		if c, ok := at(); !ok {
			return nil, false, d.end()
		} else if c < '0' || c > '9' {
			return nil, false, d.invalid(c, "in numeric literal")
		}
	}
	if c, _ := at(); c == '0' {
		d.pos++
	} else {
		digits()
	}
	if c, ok := at(); ok && c == '.' {
		d.pos++
		if digits() == 0 {
			if c, ok := at(); ok {
				return nil, false, d.invalid(c, "after decimal point in numeric literal")
			}
			return nil, false, d.end()
		}
	}
	if c, ok := at(); ok && (c == 'e' || c == 'E') {
		check = true
		d.pos++
		if c, ok := at(); ok && (c == '+' || c == '-') {
			d.pos++
		}
		if digits() == 0 {
			if c, ok := at(); ok {
				return nil, false, d.invalid(c, "in exponent of numeric literal")
			}
			return nil, false, d.end()
		}
	}
	raw = d.buf[d.keep:d.pos]
	return raw, check || len(raw) > 308, nil
}

// literal consumes true, false or null.
func (d *jsonDecoder) literal() (any, error) {
	var word string
	var v any
	switch d.buf[d.pos] {
	case 't':
		word, v = "true", true
	case 'f':
		word, v = "false", false
	default:
		word, v = "null", nil
	}
	for i := 1; i < len(word); i++ {
		if !d.ensure(i + 1) {
			return nil, d.end()
		}
		if c := d.buf[d.pos+i]; c != word[i] {
			d.pos += i
			return nil, d.invalid(c, "in literal "+word+" (expecting "+quoteByte(word[i])+")")
		}
	}
	d.pos += len(word)
	return v, nil
}

// intern returns the string of b, boxed: short strings that repeat (keys,
// states) are allocated once per document.
func (d *jsonDecoder) intern(b []byte) any {
	if len(b) > 64 {
		return string(b)
	}
	if v, ok := d.strs[string(b)]; ok {
		return v
	}
	var v any = string(b)
	if len(d.strs) < 4096 {
		d.strs[v.(string)] = v
	}
	return v
}

// unquoteJSON returns the string of a raw JSON string token, as
// encoding/json decodes it (invalid UTF-8 and lone surrogates become
// U+FFFD).
func unquoteJSON(raw []byte, plain bool) (any, error) {
	if plain {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return s, nil
}

// parseJSONNumber converts a number token as encoding/json does, refusing
// one beyond the range of float64.
func parseJSONNumber(raw []byte) (any, error) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return nil, fmt.Errorf("json: cannot unmarshal number %s into Go value of type float64", raw)
	}
	return f, nil
}
