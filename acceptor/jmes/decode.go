package jmes

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/jmespath/go-jmespath"

	"github.com/retry-dev/retry/acceptor"
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
//   - full: everything; the value is built as acceptor.DecodeJSON builds it.
//   - otherwise the value's JSON type is observed (null or not, object or
//     array, …) and a scalar is kept whole; an object keeps only the keys in
//     fields (each with its need) or, with all set, every key (each with
//     all's need); an array keeps every element, each with the elems need
//     (at least its type), so lengths and indexes do not change, and the
//     elements at the indexes in at with their own need besides: a[0].b
//     keeps b of the first element only, a[-1].b b of the last one.
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
	at     map[int64]*need // elements by index (from the end when negative), besides elems
}

// empty reports whether n observes the value's type only.
func (n *need) empty() bool {
	return !n.full && len(n.fields) == 0 && n.elems == nil && n.all == nil && len(n.at) == 0
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
	return &need{elems: an.merge(a.elems, b.elems), all: an.merge(a.all, b.all),
		fields: mergeNeeds(an, a.fields, b.fields), at: mergeNeeds(an, a.at, b.at)}
}

// mergeNeeds merges two maps of needs key by key; nil when both are empty.
func mergeNeeds[K comparable](an *analyzer, a, b map[K]*need) map[K]*need {
	if len(a)+len(b) == 0 {
		return nil
	}
	r := make(map[K]*need, len(a)+len(b))
	for k, v := range a {
		r[k] = v
	}
	for k, v := range b {
		r[k] = an.merge(r[k], v)
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

// elem is the need on any element of an array under need n, whatever its
// index: at least its type, since a kept array keeps every element.
func (an *analyzer) elem(n *need) *need {
	e := an.others(n)
	if n != nil {
		for _, v := range n.at {
			e = an.merge(e, v)
		}
	}
	return e
}

// others is the need on the elements of an array under need n whose index
// n does not name.
func (an *analyzer) others(n *need) *need {
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
	fixed, err := fixSource(src)
	if err != nil {
		return an.full
	}
	ast, err := jmespath.NewParser().Parse(fixed.lexical)
	if err != nil {
		return an.full
	}
	root, ok := rootNode(ast)
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
		if i, ok := x.intValue(); ok && i >= -maxTail {
			return &need{at: map[int64]*need{i: r}} // that element, and the others' number
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

// pathSet is what a set of JMESPath expressions can observe of a JSON
// document: the paths to keep when decoding it. Build one with
// neededPaths.
type pathSet struct {
	an   *analyzer
	root *need
	// streams are the expressions evaluated while the document is decoded
	// (stream.go), rest what the others observe; root is both together.
	streams []streamExpr
	rest    *need
	chunk   int // elements of a streamed array per evaluation; 0: streamChunk
}

// neededPaths analyzes exprs and returns what they observe, together, of
// the document they are applied to. An expression that does not compile is
// an error; one the analysis cannot follow (say `to_string(@)`) needs the
// whole document. No expressions observe nothing.
func neededPaths(exprs []string) (*pathSet, error) {
	an := newAnalyzer()
	p := &pathSet{an: an}
	for _, src := range exprs {
		e, err := compileJMESPath(src)
		if err != nil {
			return nil, err
		}
		p.add(e, an.needOf(src), true)
	}
	return p, nil
}

// add adds what e observes (n) to p; with streamable set, e is evaluated
// on stdout itself, and is streamed when it distributes over an array.
func (p *pathSet) add(e *jmesExpr, n *need, streamable bool) {
	p.root = p.an.merge(p.root, n)
	if streamable && n != nil && !n.full {
		if path, ok := streamPath(e); ok {
			p.streams = append(p.streams, streamExpr{expr: e, path: path, need: n})
			return
		}
	}
	p.rest = p.an.merge(p.rest, n)
}

// Everything reports whether the whole document is needed.
func (p *pathSet) Everything() bool { return p.root != nil && p.root.full }

// Field returns what p observes of the value of key in the document, as a
// pathSet for that value: for expressions over {"input": …, "output": …},
// Field("output") is what they observe of the output.
func (p *pathSet) Field(key string) *pathSet {
	return &pathSet{an: p.an, root: p.an.field(p.root, key), rest: p.an.field(p.root, key)}
}

// String writes the set compactly: * for everything, {key:…} for the keys
// of an object ({**:…} for every key), […] for array elements, _ for the
// type only; "" for nothing. The paths of
// Reservations[].Instances[].State.Name are
// {Reservations:[{Instances:[{State:{Name:*}}]}]}.
func (p *pathSet) String() string {
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
		keys := slices.Sorted(maps.Keys(n.fields))
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
	for _, i := range slices.Sorted(maps.Keys(n.at)) {
		b.WriteByte('[')
		b.WriteString(strconv.FormatInt(i, 10))
		b.WriteByte(':')
		writeNeed(b, n.at[i])
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

// Decoder returns a decoder that builds only the parts of a document in p and
// skips the rest, for acceptor.Chain.Decode. It refuses what
// acceptor.DecodeJSON refuses (syntax, trailing data, nesting deeper than
// 10000, in the skipped parts too), but for a number beyond float64 in a
// skipped part, which it accepts (nothing observes it:
// TestDecoderSkipsNumberRange), and builds the kept parts exactly as
// acceptor.DecodeJSON does. Every key of p
// that the document lacks is simply absent.
func (p *pathSet) Decoder() func(io.Reader) (any, error) {
	chunk := p.chunk
	if chunk <= 0 {
		chunk = streamChunk
	}
	pl, streamed := planStreams(p.an, p.rest, slices.Clone(p.streams), chunk)
	return func(r io.Reader) (any, error) { return decodeStreamed(r, pl, streamed) }
}

// newDecoder returns an acceptor.Chain.Decode function that builds only what
// exprs can observe of stdout. With wrapped set, the expressions are
// evaluated on {"input": …, "output": stdout} (the chain has an Input) and
// only what they observe of "output" is built. An element of exprs may also
// be the argument of a path flag, EXPR=VALUE: it counts as EXPR. An
// expression that does not compile or that the analysis cannot follow makes
// the decoder build everything, as acceptor.DecodeJSON does; so does a nil or
// empty exprs.
func newDecoder(exprs []string, wrapped bool) func(io.Reader) (any, error) {
	if len(exprs) == 0 {
		return decodeAll
	}
	exprs = append([]string(nil), exprs...)
	for i, e := range exprs {
		if _, err := compileJMESPath(e); err != nil {
			if expr, _, ok := splitPathArg(e); ok {
				exprs[i] = expr
			}
		}
	}
	p, err := neededPaths(exprs)
	if err != nil {
		return decodeAll
	}
	if wrapped {
		p = p.Field("output")
	}
	return p.Decoder()
}

// DecoderFor returns an acceptor.Chain.Decode function for c: it builds only
// what c's path matchers (PathMatch, from PathMatcher, NewPathMatcher or a
// waiter model) and the given queries can observe of stdout, taking c.Input
// and the matchers' scopes (Smithy output and inputOutput) into account.
// Queries are applied to stdout itself. Matchers of other kinds are assumed
// not to read acceptor.Env.Document: a custom matcher that does sees the
// pruned document.
func DecoderFor(c *acceptor.Chain, queries ...*Query) func(io.Reader) (any, error) {
	an := newAnalyzer()
	p := &pathSet{an: an}
	wrapped := c.Input != nil
	for _, acc := range c.Acceptors {
		m, ok := acc.Matcher.(*PathMatch)
		if !ok {
			continue
		}
		n := an.needOf(m.expr.src)
		if m.scope == ScopeInputOutput || (m.scope == ScopeDocument && wrapped) {
			n = an.field(n, "output")
		}
		// Streamed results are of expressions on stdout alone: with an
		// Input, the document is wrapped, and nothing is streamed.
		p.add(m.expr, n, !wrapped && m.scope != ScopeInputOutput)
	}
	for _, q := range queries {
		if q != nil {
			p.add(q.expr, an.needOf(q.expr.src), !wrapped)
		}
	}
	return p.Decoder()
}

// pruning is a need compiled for decoding: what the decoder keeps of a
// value and of its members.
type pruning struct {
	full  bool
	keys  []pruningKey       // the kept keys of an object, for few keys
	index map[string]int     // positions in keys, for many keys
	other *pruning           // for keys not listed; nil: skip them
	elem  *pruning           // for array elements; nil only when full
	at    map[int64]*pruning // for the elements at these indexes (≥ 0), instead of elem
	// tail is how many of the last elements an index from the end (a[-2])
	// may select: the decoder builds every element under wide (what any
	// element may need) and prunes one to its own once tail elements
	// follow it, when it is no longer among the last.
	tail int
	wide *pruning
	tap  *tap   // a streamed array is here (stream.go)
	taps []*tap // the streamed arrays at or below here
}

type pruningKey struct {
	name string
	p    *pruning
}

func buildPruning(an *analyzer, n *need, memo map[*need]*pruning) *pruning {
	if p, ok := memo[n]; ok {
		return p
	}
	p := &pruning{}
	memo[n] = p
	if n.full {
		p.full = true
		return p
	}
	keys := slices.Sorted(maps.Keys(n.fields))
	for _, k := range keys {
		p.keys = append(p.keys, pruningKey{k, buildPruning(an, an.merge(n.fields[k], n.all), memo)})
	}
	if len(p.keys) > 8 {
		p.index = make(map[string]int, len(p.keys))
		for i, k := range p.keys {
			p.index[k.name] = i
		}
	}
	if n.all != nil {
		p.other = buildPruning(an, n.all, memo)
	}
	p.elem = buildPruning(an, an.others(n), memo)
	for i, v := range n.at {
		if i < 0 {
			p.tail = max(p.tail, int(-i))
			continue
		}
		if p.at == nil {
			p.at = make(map[int64]*pruning, len(n.at))
		}
		p.at[i] = buildPruning(an, an.merge(an.others(n), v), memo)
	}
	if p.tail > 0 {
		p.wide = buildPruning(an, an.elem(n), memo)
	}
	return p
}

// maxTail bounds the window of last elements the decoder keeps wide for
// an index from the end: a farther one needs what it reaches in every
// element.
const maxTail = 1 << 20

// elemAt returns the pruning of the element at index i of an array under
// p (not nil) once it is known not to be among the last p.tail elements.
func (p *pruning) elemAt(i int) *pruning {
	if q, ok := p.at[int64(i)]; ok {
		return q
	}
	return p.elem
}

// elemOf returns the pruning of the element at index i of an array of n
// elements under p (not nil).
func (p *pruning) elemOf(i, n int) *pruning {
	if n-i <= p.tail {
		return p.wide
	}
	return p.elemAt(i)
}

// lookup returns the pruning for the value of key (raw, unescaped bytes) and
// the key as a string when the pruning holds it, or false to skip the value.
func (p *pruning) lookup(key []byte) (q *pruning, name string, kept bool) {
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

// decodeAll decodes everything, as acceptor.DecodeJSON does.
func decodeAll(r io.Reader) (any, error) { return decodePruned(r, nil) }

// decodeStreamed is decodePruned, returning a *streamedDoc when p streams
// arrays: the document with the results of the streamed expressions.
func decodeStreamed(r io.Reader, p *pruning, streamed bool) (any, error) {
	if !streamed {
		return decodePruned(r, p)
	}
	d := &prunedDecoder{dec: jsontext.NewDecoder(r, jsonOptions()...), strs: map[string]any{}, results: map[string]*streamResult{}}
	return d.streamedDocument(p)
}

// streamedDocument decodes the one document of the input under p, which
// streams arrays, into a *streamedDoc.
func (d *prunedDecoder) streamedDocument(p *pruning) (any, error) {
	v, err := d.document(p)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(omitted); ok {
		v = nil
	}
	return &streamedDoc{doc: v, results: d.results}, nil
}

// jsonOptions make jsontext accept what encoding/json (acceptor.DecodeJSON)
// accepts: invalid UTF-8 and lone surrogates become U+FFFD, a repeated key
// keeps its last value. A function: a variable would be built at every
// start of retry, whether it decodes JSON or not.
func jsonOptions() []jsontext.Options {
	return []jsontext.Options{jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)}
}

// prunedDecoder builds the parts of one JSON document that a pruning keeps,
// driving jsontext's tokenizer: kept values are read token by token, the
// rest is skipped with SkipValue, which checks its syntax (and nesting
// depth, 10000 as in encoding/json) but builds nothing. Measured on an 80 MB
// describe-instances output (BenchmarkDecode): about twice the time of the
// hand-written tokenizer this replaced (~600 lines), and bench/wait.sh still
// well under half of jp's time and memory; see the README.
type prunedDecoder struct {
	dec     *jsontext.Decoder
	exact   bool           // integers of magnitude 2^53 or more as exactInt (exact.go)
	strs    map[string]any // short strings and keys seen, boxed once
	buf     []byte         // scratch for unquoting
	results map[string]*streamResult
	sinks   map[string]*resultWriter // streamed expressions written as they come, by source
}

func decodePruned(r io.Reader, p *pruning) (any, error) {
	d := &prunedDecoder{dec: jsontext.NewDecoder(r, jsonOptions()...), strs: map[string]any{}}
	return d.document(p)
}

// document decodes the one document of the input under pruning p.
func (d *prunedDecoder) document(p *pruning) (any, error) {
	if p != nil && p.full {
		p = nil
	}
	v, err := d.value(p)
	if err != nil {
		return nil, jsonError(err)
	}
	// jsontext reads a stream of values; a document is exactly one.
	if _, err := d.dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("invalid character after top-level value (offset %d)", d.dec.InputOffset()-1)
		}
		return nil, jsonError(err)
	}
	return v, nil
}

// jsonError words a jsontext error for retry's warnings: "invalid
// character 'x' after array element (offset 12)". Read errors pass as is.
func jsonError(err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		if errors.Is(se.Err, io.ErrUnexpectedEOF) {
			return errors.New("unexpected end of JSON input")
		}
		msg := strings.TrimPrefix(se.Err.Error(), "jsontext: ")
		return fmt.Errorf("%s (offset %d)", msg, se.ByteOffset)
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errors.New("unexpected end of JSON input")
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		err = u // a read error, as the reader returned it
	}
	return err
}

// value decodes the next value under pruning p (nil: everything).
func (d *prunedDecoder) value(p *pruning) (any, error) {
	if p != nil && p.tap != nil {
		return d.tapped(p.tap)
	}
	switch d.dec.PeekKind() {
	case '{':
		if p != nil && len(p.keys) == 0 && p.other == nil {
			// Its type only (a placeholder: an element beside the one an
			// index selects, one whose number length() counts): skipped
			// whole, as object would skip each member.
			if err := d.dec.SkipValue(); err != nil {
				return nil, err
			}
			return emptyObject, nil
		}
		return d.object(p)
	case '[':
		return d.array(p)
	case '"':
		raw, err := d.dec.ReadValue()
		if err != nil {
			return nil, err
		}
		return d.str(raw, true)
	case '0':
		raw, err := d.dec.ReadValue()
		if err != nil {
			return nil, err
		}
		if d.exact {
			return exactNumber(raw)
		}
		return parseJSONNumber(raw)
	}
	tok, err := d.dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 't', 'f':
		return tok.Bool(), nil
	}
	return nil, nil // null: PeekKind reported everything else above
}

// emptyObject is the value of every object whose type only is observed:
// one map for them all, which nothing writes (the decoder builds the maps
// it fills, and JMESPath reads its input), instead of a map each: 520 000
// instances counted by length(Reservations[].Instances[]) took 164 MB.
var emptyObject any = map[string]any{}

// str returns the string of a raw JSON string, boxed; with intern, short
// strings that repeat (keys, states) are allocated once per document.
func (d *prunedDecoder) str(raw jsontext.Value, intern bool) (any, error) {
	b := raw[1 : len(raw)-1]
	if !plainJSONString(b) {
		// The decoder checked the syntax; the only errors left report
		// invalid UTF-8 or a lone surrogate, which AppendUnquote has
		// replaced with U+FFFD, as encoding/json does silently.
		d.buf, _ = jsontext.AppendUnquote(d.buf[:0], raw)
		b = d.buf
	}
	if !intern || len(b) > 64 {
		return string(b), nil
	}
	if v, ok := d.strs[string(b)]; ok {
		return v, nil
	}
	var v any = string(b)
	if len(d.strs) < 4096 {
		d.strs[v.(string)] = v
	}
	return v, nil
}

// plainJSONString reports whether the content of a JSON string holds
// neither escapes nor non-ASCII bytes, so it is the string as is.
func plainJSONString(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

func (d *prunedDecoder) object(p *pruning) (any, error) {
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, err
	}
	m := map[string]any{}
	for d.dec.PeekKind() == '"' {
		raw, err := d.dec.ReadValue()
		if err != nil {
			return nil, err
		}
		child, kept := p, true
		var key string
		if p != nil && plainJSONString(raw[1:len(raw)-1]) {
			child, key, kept = p.lookup(raw[1 : len(raw)-1])
		}
		if kept && key == "" {
			k, err := d.str(raw, true)
			if err != nil {
				return nil, err
			}
			key = k.(string)
			if p != nil && !plainJSONString(raw[1:len(raw)-1]) {
				child, _, kept = p.lookup([]byte(key))
			}
		}
		if !kept {
			if err := d.dec.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		if child != nil && child.full {
			child = nil
		}
		if child != nil && len(child.taps) > 0 {
			d.forget(child.taps)
		}
		v, err := d.value(child)
		if err != nil {
			return nil, err
		}
		if _, ok := v.(omitted); ok {
			delete(m, key) // a repeated key keeps its last value: none
			continue
		}
		m[key] = v
	}
	if _, err := d.dec.ReadToken(); err != nil { // '}', or the syntax error
		return nil, err
	}
	return m, nil
}

func (d *prunedDecoder) array(p *pruning) (any, error) {
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, err
	}
	arr := []any{}
	for k := d.dec.PeekKind(); k != ']' && k != 0; k = d.dec.PeekKind() {
		var ep *pruning
		if p != nil {
			ep = norm(p.elemOf(len(arr), len(arr)+1)) // the last for now
		}
		v, err := d.value(ep)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		if p != nil && p.tail > 0 && len(arr) > p.tail {
			i := len(arr) - 1 - p.tail // no longer among the last
			arr[i] = prune(arr[i], p.elemAt(i))
		}
	}
	if _, err := d.dec.ReadToken(); err != nil { // ']', or the syntax error
		return nil, err
	}
	return arr, nil
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
