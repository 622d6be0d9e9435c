package jmes

import (
	"reflect"
	"strings"
	"testing"

	"github.com/jmespath/go-jmespath"
)

// TestJMESPathASTShape fails loudly when go-jmespath changes the AST that
// jmesast.go reads by reflection: without it, expressions would silently
// lose their compile-time function checks and documents their pruning.
func TestJMESPathASTShape(t *testing.T) {
	t.Parallel()
	ast, err := jmespath.NewParser().Parse("length(a[0]) == `1`")
	if err != nil {
		t.Fatal(err)
	}
	n, ok := asASTNode(reflect.ValueOf(ast))
	if !ok {
		t.Fatalf("go-jmespath's ASTNode has a new shape (%T): update jmesast.go", ast)
	}
	if n.kind() != int64(jmespath.ASTComparator) || len(n.children()) != 2 {
		t.Fatalf("the root is not a comparator with two children: %s", ast)
	}
	if _, ok := n.intValue(); !ok {
		t.Fatal("the comparator holds no token number")
	}
	fn := n.children()[0]
	if name, ok := fn.str(); fn.kind() != int64(jmespath.ASTFunctionExpression) || !ok || name != "length" {
		t.Fatalf("the function call node changed: %s", ast)
	}
	if lit := n.children()[1]; !lit.scalarLiteral() {
		t.Fatalf("the literal node changed: %s", ast)
	}
	for src, want := range map[string]int64{"a[::0]": 0, "a[1:2:3]": 3, "a[::-1]": -1} {
		ast, err := jmespath.NewParser().Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		root, _ := rootNode(ast)
		var find func(n astNode) (astNode, bool)
		find = func(n astNode) (astNode, bool) {
			if n.kind() == int64(jmespath.ASTSlice) {
				return n, true
			}
			for _, c := range n.children() {
				if s, ok := find(c); ok {
					return s, true
				}
			}
			return astNode{}, false
		}
		slice, found := find(root)
		if !found {
			t.Fatalf("%s: no slice node: %s", src, ast)
		}
		if step, ok := slice.sliceStep(); !ok || step != want {
			t.Fatalf("%s: the slice node changed (step %d, %v): %s", src, step, ok, ast)
		}
	}
	eq, ok1 := comparatorToken("a==b")
	ne, ok2 := comparatorToken("a!=b")
	if !ok1 || !ok2 || eq == ne {
		t.Fatalf("comparator tokens: == %d (%v), != %d (%v)", eq, ok1, ne, ok2)
	}
}

// TestJMESPathFunctionArities checks the arity table against the library
// itself: every function it lists is known to go-jmespath, and calls with
// one argument too few or too many fail there too.
func TestJMESPathFunctionArities(t *testing.T) {
	t.Parallel()
	names := []string{"abs", "avg", "ceil", "floor", "keys", "length", "reverse", "sort", "sum",
		"to_array", "to_number", "to_string", "type", "values", "max", "min",
		"contains", "ends_with", "starts_with", "join", "map", "max_by", "min_by", "sort_by",
		"merge", "not_null"}
	call := func(name string, n int) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = nil // past the arity check: the library failed on the argument
			}
		}()
		args := strings.TrimSuffix(strings.Repeat("@,", n), ",")
		if name == "map" || strings.HasSuffix(name, "_by") {
			args = strings.TrimSuffix("&a,"+strings.Repeat("@,", max(n-1, 0)), ",")
		}
		_, err = jmespath.Search(name+"("+args+")", []any{})
		return err
	}
	// arity reports an error of go-jmespath about the number of arguments.
	arity := func(err error) bool {
		return err != nil && (strings.Contains(err.Error(), "number of arg") || strings.Contains(err.Error(), "arity"))
	}
	for _, name := range names {
		lo, hi, ok := jmesFunctionArity(name)
		if !ok {
			t.Errorf("%s: not in the arity table", name)
			continue
		}
		if err := call(name, lo); arity(err) {
			t.Errorf("%s with %d arguments: the library says %v; the table says that is enough", name, lo, err)
		}
		if err := call(name, lo-1); !arity(err) {
			t.Errorf("%s with %d arguments: the library says %v; the table says at least %d", name, lo-1, err, lo)
		}
		if hi >= 0 {
			if err := call(name, hi+1); !arity(err) {
				t.Errorf("%s with %d arguments: the library says %v; the table says at most %d", name, hi+1, err, hi)
			}
		}
	}
	if _, _, ok := jmesFunctionArity("lenght"); ok {
		t.Error("an unknown function is in the table")
	}
	if _, err := jmespath.Search("lenght(@)", []any{}); err == nil {
		t.Error("the library knows lenght()")
	}
}
