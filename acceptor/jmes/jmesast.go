package jmes

import (
	"reflect"

	"github.com/jmespath/go-jmespath"
)

// This file is the only place that knows go-jmespath's insides: it reads the
// library's parsed expressions, and it keeps the table of its functions'
// arities. The library keeps its AST fields unexported (nodeType, value,
// children); reflection reads them without modifying anything. Compile-time
// function checks (checkFunctions) and document pruning (analyzer) depend
// on it. TestJMESPathASTShape and TestJMESPathFunctionArities fail loudly
// when a library version changes the shape or the functions; until then,
// asASTNode's check makes callers fall back (no function checks at compile
// time, no pruning) rather than fail.

// astNode reads a go-jmespath ASTNode. The library keeps its AST fields
// unexported (nodeType, value, children); reflection reads them without
// modifying anything. asASTNode checks the shape first, so a future
// version with another layout makes callers fall back (no function checks
// at compile time, no pruning of documents) rather than fail.
type astNode struct{ v reflect.Value }

// rootNode returns the root of a parsed expression; ok is false when the
// library's AST has a shape this file does not know.
func rootNode(ast jmespath.ASTNode) (astNode, bool) { return asASTNode(reflect.ValueOf(ast)) }

func asASTNode(v reflect.Value) (astNode, bool) {
	t := v.Type()
	if t.Kind() != reflect.Struct {
		return astNode{}, false
	}
	nt, ok1 := t.FieldByName("nodeType")
	val, ok2 := t.FieldByName("value")
	ch, ok3 := t.FieldByName("children")
	if !ok1 || !ok2 || !ok3 || nt.Type.Kind() != reflect.Int || val.Type.Kind() != reflect.Interface ||
		ch.Type.Kind() != reflect.Slice || ch.Type.Elem() != t {
		return astNode{}, false
	}
	return astNode{v}, true
}

func (n astNode) kind() int64 { return n.v.FieldByName("nodeType").Int() }

func (n astNode) children() []astNode {
	c := n.v.FieldByName("children")
	out := make([]astNode, c.Len())
	for i := range out {
		out[i] = astNode{c.Index(i)}
	}
	return out
}

// str returns the node's value when it is a string (field and function
// names, multi-select keys).
func (n astNode) str() (string, bool) {
	v := n.v.FieldByName("value")
	if v.IsNil() || v.Elem().Kind() != reflect.String {
		return "", false
	}
	return v.Elem().String(), true
}

// intValue returns the node's value when it is an integer (comparator
// tokens, indexes).
func (n astNode) intValue() (int64, bool) {
	v := n.v.FieldByName("value")
	if v.IsNil() || v.Elem().Kind() != reflect.Int {
		return 0, false
	}
	return v.Elem().Int(), true
}

// sliceStep returns the step of a slice node (`[a:b:step]`); ok is false
// for another node and for a slice without a step.
func (n astNode) sliceStep() (step int64, ok bool) {
	if n.kind() != int64(jmespath.ASTSlice) {
		return 0, false
	}
	parts := n.v.FieldByName("value") // []*int{start, stop, step}
	if parts.Kind() != reflect.Interface || parts.IsNil() {
		return 0, false
	}
	if parts = parts.Elem(); parts.Kind() != reflect.Slice || parts.Len() != 3 {
		return 0, false
	}
	s := parts.Index(2)
	if s.Kind() != reflect.Pointer || s.IsNil() || !s.Elem().CanInt() {
		return 0, false
	}
	return s.Elem().Int(), true
}

// scalarLiteral reports whether the node is a literal null, boolean, number
// or string.
func (n astNode) scalarLiteral() bool {
	if n.kind() != int64(jmespath.ASTLiteral) {
		return false
	}
	v := n.v.FieldByName("value")
	if v.IsNil() {
		return true
	}
	switch v.Elem().Kind() {
	case reflect.Bool, reflect.Float64, reflect.String:
		return true
	}
	return false
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

// jmesFunctionArity returns the number of arguments a JMESPath function of
// go-jmespath takes: at least lo, at most hi (-1: any number); ok is false
// for an unknown function.
func jmesFunctionArity(name string) (lo, hi int, ok bool) {
	switch name {
	case "abs", "avg", "ceil", "floor", "keys", "length", "reverse", "sort", "sum",
		"to_array", "to_number", "to_string", "type", "values", "max", "min":
		return 1, 1, true
	case "contains", "ends_with", "starts_with", "join", "map", "max_by", "min_by", "sort_by":
		return 2, 2, true
	case "merge", "not_null":
		return 1, -1, true
	}
	return 0, 0, false
}
