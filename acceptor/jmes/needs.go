package jmes

import (
	"github.com/jmespath/go-jmespath"
)

// This file works out, for a set of JMESPath expressions, the parts of a
// JSON document they can observe; the decoder in decode.go builds those
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

// Field returns what p observes of the value of key in the document, as a
// pathSet for that value: for expressions over {"input": …, "output": …},
// Field("output") is what they observe of the output.
func (p *pathSet) Field(key string) *pathSet {
	return &pathSet{an: p.an, root: p.an.field(p.root, key), rest: p.an.field(p.root, key)}
}
