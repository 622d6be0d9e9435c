package jmes

import (
	"errors"
	"slices"
	"strings"

	"github.com/jmespath/go-jmespath"
)

// This file evaluates, while a document is decoded, the expressions that
// project over one array of it (Reservations[].Instances[].State.Name), so
// that the array's elements are built a chunk at a time and dropped: memory
// then holds the results, not the elements. A 500 MB describe-instances
// output polled for the state of every instance keeps about 600 000
// strings instead of 600 000 instances of a pruned tree. A --query does not
// even keep the results: each chunk's are encoded as they come
// (query_stream.go).
//
// Such an expression distributes over the array: evaluated on a document
// whose array is cut into consecutive chunks, it gives, chunk after chunk,
// lists whose concatenation is its result on the whole document. That holds
// for a projection ([*], [], [?…]) or a flatten whose left side is the
// array itself (reached by keys from the document: a.b[*]) or, in turn,
// such an expression: a projection evaluates its right side on each element
// alone and collects the results that are not null, a flatten concatenates.
// A pipe, an index or a slice of the whole list, a function of it, do not
// distribute and are evaluated on the document as before. When the value
// at the path is not an array, the expressions are evaluated on the
// document, which then keeps that value as they need it. A document that
// repeats a key on the way to the array keeps its last value: what an
// earlier one streamed is dropped (prunedDecoder.forget).

// streamChunk is how many elements of a streamed array are built before the
// expressions are evaluated on them and the elements dropped; fewer when
// they span streamChunkBytes of the document, so that large elements (whole
// instances, for Reservations[].Instances[]) are not built 512 at a time.
const (
	streamChunk      = 512
	streamChunkBytes = 256 << 10
)

// streamExpr is an expression evaluated chunk by chunk on the array at path.
type streamExpr struct {
	expr *jmesExpr
	path []string
	need *need // what it observes of the document
}

// streamPath returns the keys from the document to the array e distributes
// over; ok is false when e does not distribute over an array.
func streamPath(e *jmesExpr) (path []string, ok bool) {
	defer func() {
		if recover() != nil {
			path, ok = nil, false
		}
	}()
	fixed, err := fixSource(e.src)
	if err != nil {
		return nil, false
	}
	ast, err := jmespath.NewParser().Parse(fixed.program)
	if err != nil {
		return nil, false
	}
	root, ok := rootNode(ast)
	if !ok {
		return nil, false
	}
	return listPath(root)
}

// fieldPath returns the keys of x when x only follows keys from its input
// (a, a.b.c; @ is no key at all).
func fieldPath(x astNode) ([]string, bool) {
	switch x.kind() {
	case int64(jmespath.ASTIdentity), int64(jmespath.ASTCurrentNode):
		return []string{}, true
	case int64(jmespath.ASTField):
		name, ok := x.str()
		return []string{name}, ok
	case int64(jmespath.ASTSubexpression):
		c := x.children()
		if len(c) != 2 {
			return nil, false
		}
		l, ok1 := fieldPath(c[0])
		r, ok2 := fieldPath(c[1])
		return append(l, r...), ok1 && ok2
	}
	return nil, false
}

// listPath returns the keys to the array x distributes over (see above).
func listPath(x astNode) ([]string, bool) {
	c := x.children()
	switch x.kind() {
	case int64(jmespath.ASTProjection), int64(jmespath.ASTFilterProjection), int64(jmespath.ASTFlatten):
		want := map[int64]int{int64(jmespath.ASTProjection): 2, int64(jmespath.ASTFilterProjection): 3, int64(jmespath.ASTFlatten): 1}[x.kind()]
		if len(c) != want {
			return nil, false
		}
		if p, ok := fieldPath(c[0]); ok {
			return p, true
		}
		return listPath(c[0])
	case int64(jmespath.ASTSubexpression):
		if len(c) != 2 {
			return nil, false
		}
		l, ok := fieldPath(c[0])
		if !ok {
			return nil, false
		}
		r, ok := listPath(c[1])
		return append(l, r...), ok
	}
	return nil, false
}

// streamedDoc is what a decoder with streamed expressions returns: the
// document as the other expressions need it, and the results of the
// streamed ones, by expression. jmesExpr.search reads it.
type streamedDoc struct {
	doc     any
	results map[string]*streamResult
}

type streamResult struct {
	v   []any
	err error
	// out, when set, takes the results as they come instead of v (a
	// --query written while the document is decoded, query_stream.go).
	out *resultWriter
}

// tap is where, in a pruning, a streamed array is: the expressions
// evaluated on its chunks, and what the decoder builds of it.
type tap struct {
	path  []string
	chunk int // elements per evaluation
	exprs []*jmesExpr
	elem  *pruning // each element, for the expressions and the document (nil: all)
	whole *pruning // the value when it is not an array (nil: all)
	keep  bool     // the document keeps the array
	kept  *pruning // what it keeps of each element (nil: all)
}

// errNotList is a streamed expression's result on a chunk that is not a
// list, which the analysis above rules out.
var errNotList = errors.New("a streamed expression did not give a list")

// evaluate evaluates the tap's expressions on the document made of chunk
// alone and appends their results to res; an expression that failed is
// not evaluated again.
func (t *tap) evaluate(chunk []any, res []*streamResult) {
	var doc any = chunk
	for i := len(t.path) - 1; i >= 0; i-- {
		doc = map[string]any{t.path[i]: doc}
	}
	for i, e := range t.exprs {
		r := res[i]
		if r.err != nil {
			continue
		}
		v, err := e.search(doc)
		arr, ok := v.([]any)
		switch {
		case err != nil:
			r.err = err
		case !ok:
			r.err = errNotList
		case r.out != nil:
			r.out.write(arr)
		default:
			r.v = append(r.v, arr...)
		}
	}
}

// forget drops what the taps below a key hold of its value, before the
// value is decoded: a document that repeats the key keeps its last value,
// whatever the earlier ones streamed ({"a":{"b":[1]},"a":0} has no a.b).
func (d *prunedDecoder) forget(taps []*tap) {
	for _, t := range taps {
		for _, e := range t.exprs {
			delete(d.results, e.src)
			if w := d.sinks[e.src]; w != nil {
				w.reset()
			}
		}
	}
}

// omitted is the value of a streamed array the document does not keep.
type omitted struct{}

// tapped decodes the value at a tap: an array chunk by chunk, anything
// else for the document.
func (d *prunedDecoder) tapped(t *tap) (any, error) {
	if d.dec.PeekKind() != '[' {
		for _, e := range t.exprs {
			delete(d.results, e.src) // evaluated on the document, which keeps the value
		}
		return d.value(t.whole)
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, err
	}
	res := make([]*streamResult, len(t.exprs))
	for i, e := range t.exprs {
		res[i] = &streamResult{v: []any{}, out: d.sinks[e.src]}
		if res[i].out != nil {
			res[i].out.reset()
		}
	}
	var kept []any
	if t.keep {
		kept = []any{}
	}
	chunk := make([]any, 0, t.chunk)
	start := d.dec.InputOffset()
	for k := d.dec.PeekKind(); k != ']' && k != 0; k = d.dec.PeekKind() {
		v, err := d.value(t.elem)
		if err != nil {
			return nil, err
		}
		if t.keep {
			kept = append(kept, prune(v, t.kept))
		}
		chunk = append(chunk, v)
		if at := d.dec.InputOffset(); len(chunk) == t.chunk || at-start >= streamChunkBytes {
			t.evaluate(chunk, res)
			clear(chunk)
			chunk = chunk[:0]
			start = at
		}
	}
	if _, err := d.dec.ReadToken(); err != nil { // ']', or the syntax error
		return nil, err
	}
	t.evaluate(chunk, res)
	for i, e := range t.exprs {
		d.results[e.src] = res[i]
	}
	if !t.keep {
		return omitted{}, nil
	}
	return kept, nil
}

// prune returns what pruning p keeps of v, a value built under a pruning
// that keeps at least as much.
func prune(v any, p *pruning) any {
	if p == nil || p.full {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, min(len(x), len(p.keys)))
		for k, xv := range x {
			if q, _, kept := p.lookup([]byte(k)); kept {
				m[k] = prune(xv, q)
			}
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, xv := range x {
			out[i] = prune(xv, p.elemOf(i, len(x)))
		}
		return out
	}
	return v
}

// norm is p as the decoder takes it: nil for everything.
func norm(p *pruning) *pruning {
	if p == nil || p.full {
		return nil
	}
	return p
}

// planStreams decides which of streams are streamed, given what the other
// expressions observe of the document (doc), and returns the need of the
// document, the streamed expressions grouped by path, and the pruning of the
// document with a tap at each streamed path. An expression is not streamed
// (its need goes to the document's) when the document keeps everything on
// its path or at it (streaming would save nothing), or when another
// streamed path is a prefix of its own.
func planStreams(an *analyzer, doc *need, streams []streamExpr, chunk int) (*pruning, bool) {
	key := func(path []string) string { return strings.Join(path, "\x00") + "\x00" }
	for changed := true; changed; {
		changed = false
		for i, s := range streams {
			demote := false
			for j, o := range streams {
				if j != i && len(o.path) < len(s.path) && strings.HasPrefix(key(s.path), key(o.path)) {
					demote = true
				}
			}
			n := doc
			for _, k := range s.path {
				if n != nil && n.full {
					demote = true
				}
				n = an.field(n, k)
			}
			if demote || (n != nil && n.full) {
				doc = an.merge(doc, s.need)
				streams = slices.Delete(streams, i, i+1)
				changed = true
				break
			}
		}
	}
	root := doc
	if root == nil {
		root = an.typ
	}
	for _, s := range streams {
		marker := an.typ
		for i := len(s.path) - 1; i >= 0; i-- {
			marker = &need{fields: map[string]*need{s.path[i]: marker}}
		}
		root = an.merge(root, marker)
	}
	memo := map[*need]*pruning{}
	pl := buildPruning(an, root, memo)
	if len(streams) == 0 {
		return pl, false
	}
	groups := map[string]*tap{}
	var order []string
	union := map[string]*need{}
	for _, s := range streams {
		k := key(s.path)
		t, ok := groups[k]
		if !ok {
			t = &tap{path: s.path, chunk: chunk}
			groups[k] = t
			order = append(order, k)
		}
		if !slices.ContainsFunc(t.exprs, func(e *jmesExpr) bool { return e.src == s.expr.src }) {
			t.exprs = append(t.exprs, s.expr)
		}
		n := s.need
		for _, f := range s.path {
			n = an.field(n, f)
		}
		union[k] = an.merge(union[k], n)
	}
	for _, k := range order {
		t := groups[k]
		at := doc
		for _, f := range t.path {
			at = an.field(at, f)
		}
		all := an.merge(at, union[k])
		t.whole = norm(buildPruning(an, all, memo))
		t.elem = norm(buildPruning(an, an.elem(all), memo))
		t.keep = at != nil
		if t.keep {
			t.kept = norm(buildPruning(an, an.elem(at), memo))
		}
		pl = attachTap(pl, t.path, t)
	}
	return pl, true
}

// attachTap returns a copy of p with t at path (copying the nodes on the
// way: prunings are shared between the places that need the same), each
// node on the way listing t among its taps.
func attachTap(p *pruning, path []string, t *tap) *pruning {
	q := *p
	q.taps = append(slices.Clip(p.taps), t)
	if len(path) == 0 {
		q.tap = t
		return &q
	}
	q.keys = slices.Clone(p.keys)
	for i := range q.keys {
		if q.keys[i].name == path[0] {
			q.keys[i].p = attachTap(q.keys[i].p, path[1:], t)
			return &q
		}
	}
	return p // cannot happen: the root's need has every key of the path
}
