package jmes

import (
	"bytes"
	"io"
	"math"
	"math/big"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/jmespath/go-jmespath"

	"github.com/retry-dev/retry/acceptor"
)

// Integers beyond 2^53 lose digits as float64, the only number type of
// go-jmespath: 12345678901234567890 would print as 12345678901234567000 and
// equal 12345678901234567891. python jmespath (the AWS CLI's) keeps them
// exact. Where the library does not need numbers as float64 — an expression
// that only selects and reshapes values (fields, indexes, slices,
// projections, flattening, multi-selects, pipes, ||, &&, !), never comparing
// them or passing them to a function — the document is decoded with such
// integers as exactInt, which the library passes through untouched (to it an
// exactInt is a value with no fields, elements or keys, as any string-kinded
// type), and which compares and prints exactly. Elsewhere (filters,
// comparisons, functions) numbers stay float64, as the library needs them.

// exactInt is an integer of a JSON document whose magnitude is 2^53 or
// more, as its decimal text (a JSON integer token: optional minus, no
// leading zero).
type exactInt string

// maxExactFloat is 2^53: every integer of smaller magnitude is exact as a
// float64.
const maxExactFloat = 1 << 53

// integerToken reports whether a JSON number token is an integer (no
// fraction, no exponent).
func integerToken(raw []byte) bool {
	for _, c := range raw {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// bigFloat reports whether v holds a float64 of magnitude 2^53 or more: a
// number that may have lost digits when it was decoded.
func bigFloat(v any) bool {
	switch v := v.(type) {
	case float64:
		return math.Abs(v) >= maxExactFloat
	case []any:
		for _, e := range v {
			if bigFloat(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if bigFloat(e) {
				return true
			}
		}
	}
	return false
}

// exactEqual compares an exactInt with a float64 or another exactInt, as
// numbers: exactly.
func exactEqual(a exactInt, b any) bool {
	switch b := b.(type) {
	case exactInt:
		return a == b
	case float64:
		if math.IsInf(b, 0) || math.IsNaN(b) || b != math.Trunc(b) {
			return false
		}
		x, ok := new(big.Int).SetString(string(a), 10)
		if !ok {
			return false
		}
		y, _ := new(big.Float).SetFloat64(b).Int(nil)
		return x.Cmp(y) == 0
	}
	return false
}

// passesNumbersThrough reports whether the expression lexical (a fixed
// source, fixSource's lexical) only selects and reshapes values, so that
// exactInt values reach its result untouched; false when it cannot be
// parsed or read.
func passesNumbersThrough(lexical string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	ast, err := jmespath.NewParser().Parse(lexical)
	if err != nil {
		return false
	}
	root, ok := rootNode(ast)
	if !ok {
		return false
	}
	var walk func(n astNode) bool
	walk = func(n astNode) bool {
		switch n.kind() {
		case int64(jmespath.ASTEmpty), int64(jmespath.ASTCurrentNode), int64(jmespath.ASTIdentity),
			int64(jmespath.ASTField), int64(jmespath.ASTSubexpression), int64(jmespath.ASTIndexExpression),
			int64(jmespath.ASTIndex), int64(jmespath.ASTSlice), int64(jmespath.ASTProjection),
			int64(jmespath.ASTValueProjection), int64(jmespath.ASTFlatten), int64(jmespath.ASTMultiSelectList),
			int64(jmespath.ASTMultiSelectHash), int64(jmespath.ASTKeyValPair), int64(jmespath.ASTPipe),
			int64(jmespath.ASTLiteral), int64(jmespath.ASTOrExpression), int64(jmespath.ASTAndExpression),
			int64(jmespath.ASTNotExpression):
		default:
			return false
		}
		for _, c := range n.children() {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	return walk(root)
}

// exactNumber converts a number token as parseJSONNumber does, except an
// integer of magnitude 2^53 or more, which it keeps as an exactInt.
func exactNumber(raw []byte) (any, error) {
	v, err := parseJSONNumber(raw)
	if f, ok := v.(float64); ok && math.Abs(f) >= maxExactFloat && integerToken(raw) {
		return exactInt(raw), nil
	}
	return v, err
}

// exactDecoder returns a decoder of stdout for the expression src that
// builds only what it observes (of "output" with wrapped: it is evaluated on
// {"input": …, "output": stdout}), integers of magnitude 2^53 or more as
// exactInt. It streams nothing: it runs only when a result holds such a
// number, to compute that result again.
func exactDecoder(src string, wrapped bool) func(io.Reader) (any, error) {
	an := newAnalyzer()
	n := an.needOf(src)
	if wrapped {
		n = an.field(n, "output")
	}
	if n == nil {
		n = an.typ
	}
	pl := buildPruning(an, n, map[*need]*pruning{})
	return func(r io.Reader) (any, error) {
		d := &prunedDecoder{dec: jsontext.NewDecoder(r, jsonOptions()...), exact: true, strs: map[string]any{}}
		return d.document(pl)
	}
}

// decodeExact decodes one JSON value from b, integers of magnitude 2^53 or
// more as exactInt (an expected VALUE).
func decodeExact(b []byte) (any, error) {
	d := &prunedDecoder{dec: jsontext.NewDecoder(bytes.NewReader(b), jsonOptions()...), exact: true, strs: map[string]any{}}
	return d.document(nil)
}

// exactDecoders are an expression's exact decoders: of stdout, and of stdout
// as the "output" of {"input": …, "output": …}.
type exactDecoders struct {
	once           sync.Once
	plain, wrapped func(io.Reader) (any, error)
}

// exactAgain computes e again with exact integers when v, its result on the
// document with float64 numbers, holds a number of magnitude 2^53 or more
// and e passes numbers through: on a's stdout decoded with such integers
// exact, as it is, or with input non-nil as {"input": input, "output":
// stdout}. ok is false when there is nothing to do or it cannot be done
// (the result v then stands).
func (e *jmesExpr) exactAgain(v any, a *acceptor.Attempt, input any) (ev any, ok bool) {
	if !e.exact || a == nil || !bigFloat(v) {
		return nil, false
	}
	e.exactDec.once.Do(func() {
		e.exactDec.plain, e.exactDec.wrapped = exactDecoder(e.src, false), exactDecoder(e.src, true)
	})
	dec := e.exactDec.plain
	if input != nil {
		dec = e.exactDec.wrapped
	}
	out, err := acceptor.StdoutDocument(a, dec)
	if err != nil {
		return nil, false
	}
	doc := out
	if input != nil {
		doc = map[string]any{"input": input, "output": out}
	}
	ev, err = e.search(doc)
	return ev, err == nil
}
