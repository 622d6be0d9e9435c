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

	"github.com/retry-dev/retry/acceptor"
)

// This file is the decoder that builds only the parts of a JSON document a
// pathSet (needs.go) keeps, and skips the rest while still checking it.

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
	empty   map[string]any           // the placeholder object (emptyObject)
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
			return d.emptyObject(), nil
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

// emptyObject returns the value of every object whose type only is
// observed: one map for the whole document, which nothing writes (the
// decoder builds the maps it fills, and JMESPath reads its input), instead
// of a map each: 520 000 instances counted by
// length(Reservations[].Instances[]) took 164 MB. It is made on first use,
// not as a package variable: a map at package level is built by code at
// every start of retry.
func (d *prunedDecoder) emptyObject() any {
	if d.empty == nil {
		d.empty = map[string]any{}
	}
	return d.empty
}

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
