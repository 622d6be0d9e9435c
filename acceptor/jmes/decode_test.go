package jmes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/retry-dev/retry/acceptor"
)

// decodeCases are documents both decoders must treat alike: valid ones,
// syntax errors, trailing data, numbers beyond float64, escapes.
var decodeCases = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e3`, `-12.25E-2`, `"x"`, ` {"a" : [ 1 , 2 ] } `,
	`{"a":{"b":[{"c":null},{"c":"d"}]},"e":[[],[[1]],{}]}`,
	`{"a":1,"a":2}`, `{"a":{"b":1},"a":{"c":2}}`,
	`"\u00e9\n\t\"\\\/\b\f\r"`, `"\ud83d\ude00"`, `"\ud800"`, "\"\xff\xfe\"", `"é"`, `{"\u0041":1,"é":2}`,
	`1e308`, `1e309`, `-1e400`, `1e-400`, `123456789012345678901234567890`,
	`"` + strings.Repeat("9", 400) + `"`, strings.Repeat("9", 400),
	``, ` `, `{`, `[`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `[1,`, `[1`, `"abc`, `"\u12`, `tru`, `nul`,
	`{"a":1,}`, `[1,]`, `{,}`, `[,]`, `{"a" 1}`, `{1:2}`, `{"a":1 "b":2}`, `[1 2]`,
	`01`, `-`, `-a`, `1.`, `1.e3`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `NaN`, `Infinity`, `1.5.3`,
	`truex`, `nulll`, `True`, `"a` + "\x01" + `b"`, `"\x"`, `"\u00zz"`, `'a'`,
	`{} {}`, `{} x`, `1 2`, `[] ]`, "{}\n\n", "\ufeff{}", `{"a":[1,2,{"b":[true,false,null]}]}garbage`,
}

// sameDecode checks that decode accepts and refuses what DecodeJSON does
// and, when full, builds the same value.
func sameDecode(t *testing.T, name string, decode func(io.Reader) (any, error), doc string, full bool) {
	t.Helper()
	want, werr := acceptor.DecodeJSON(strings.NewReader(doc))
	got, gerr := decode(strings.NewReader(doc))
	if !full && werr != nil && gerr == nil && strings.Contains(werr.Error(), "cannot unmarshal number") {
		// A number beyond float64 in a part the expressions never read
		// is no reason to fail: the pruning decoder skips it unchecked.
		return
	}
	if (werr == nil) != (gerr == nil) {
		t.Errorf("%s: %q: got error %v, DecodeJSON %v", name, doc, gerr, werr)
		return
	}
	if full && werr == nil && shownJSON(got, 0) != shownJSON(want, 0) {
		t.Errorf("%s: %q: got %s, DecodeJSON %s", name, doc, shownJSON(got, 0), shownJSON(want, 0))
	}
}

func TestDecodersAgreeWithDecodeJSON(t *testing.T) {
	t.Parallel()
	pruned := newDecoder([]string{"a.b[0].c", "e[1][0]"}, false)
	for _, doc := range decodeCases {
		sameDecode(t, "full", decodeAll, doc, true)
		sameDecode(t, "pruned", pruned, doc, false)
		// One byte at a time: every token crosses a buffer boundary.
		one := func(r io.Reader) (any, error) { return pruned(iotest.OneByteReader(r)) }
		sameDecode(t, "pruned, one byte per read", one, doc, false)
		fullOne := func(r io.Reader) (any, error) { return decodeAll(iotest.OneByteReader(r)) }
		sameDecode(t, "full, one byte per read", fullOne, doc, true)
	}
}

func TestDecoderSkipsNumberRange(t *testing.T) {
	t.Parallel()
	doc := `{"skipped":[1e999],"a":{"b":[{"c":-1e400}]}}`
	if _, err := acceptor.DecodeJSON(strings.NewReader(doc)); err == nil {
		t.Fatal("DecodeJSON accepts 1e999")
	}
	if _, err := decodeAll(strings.NewReader(doc)); err == nil || !strings.Contains(err.Error(), "cannot unmarshal number 1e999") {
		t.Fatalf("full decode: got %v", err)
	}
	if _, err := newDecoder([]string{"a.b[0].c"}, false)(strings.NewReader(doc)); err == nil || !strings.Contains(err.Error(), "cannot unmarshal number -1e400") {
		t.Fatalf("a kept number beyond float64: got %v", err)
	}
	v, err := newDecoder([]string{"a"}, false)(strings.NewReader(`{"skipped":[1e999],"a":1}`))
	if err != nil || v.(map[string]any)["a"] != 1.0 {
		t.Fatalf("a skipped number beyond float64: got %v, %v", v, err)
	}
}

func TestDecoderDepthLimit(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{10000, 10001} {
		doc := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		sameDecode(t, fmt.Sprintf("full depth %d", depth), decodeAll, doc, true)
		sameDecode(t, fmt.Sprintf("pruned depth %d", depth), newDecoder([]string{"a"}, false), doc, false)
		obj := `{"x":` + strings.Repeat(`{"a":`, depth-1) + "1" + strings.Repeat("}", depth)
		sameDecode(t, fmt.Sprintf("skipped depth %d", depth), newDecoder([]string{"y"}, false), obj, false)
	}
}

func TestDecoderReadError(t *testing.T) {
	t.Parallel()
	boom := fmt.Errorf("disk on fire")
	r := io.MultiReader(strings.NewReader(`{"a": [1, 2`), iotest.ErrReader(boom))
	_, err := newDecoder([]string{"a"}, false)(r)
	if err != boom {
		t.Fatalf("got %v, want the read error", err)
	}
}

func TestDecoderErrorOffset(t *testing.T) {
	t.Parallel()
	_, err := decodeAll(strings.NewReader(`{"a": [1, 2 x]}`))
	if err == nil || !strings.Contains(err.Error(), "invalid character 'x' after array element (expecting ',' or ']') (offset 12)") {
		t.Fatalf("got %v", err)
	}
}

func TestNeededPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		exprs []string
		want  string
	}{
		// a[] flattens: an element of a may itself be an array of such elements.
		{[]string{"Reservations[].Instances[].State.Name"},
			"{Reservations:[{Instances:{State:{Name:*}}[{State:{Name:*}}]}[{Instances:{State:{Name:*}}[{State:{Name:*}}]}]]}"},
		{[]string{"Reservations[*].Instances[*].State.Name"}, "{Reservations:[{Instances:[{State:{Name:*}}]}]}"},
		{[]string{"a.b", "a.c"}, "{a:{b:*,c:*}}"},
		{[]string{"a[0].b"}, "{a:[0:{b:*}]}"},
		{[]string{"a[0].b", "a[2].c", "a[0].d"}, "{a:[0:{b:*,d:*}][2:{c:*}]}"},
		{[]string{"a[0].b", "a[].c"}, "{a:[{c:*}[{c:*}]][0:{b:*}]}"},
		{[]string{"a[-1].b"}, "{a:[-1:{b:*}]}"},
		{[]string{"a[-2000000].b"}, "{a:[{b:*}]}"},
		{[]string{"(a[].b)[0]"}, "{a:[{b:*}[{b:*}]]}"},
		{[]string{"Reservations[0].Instances[0].InstanceId"}, "{Reservations:[0:{Instances:[0:{InstanceId:*}]}]}"},
		{[]string{"a[1:3]"}, "{a:[*]}"},
		{[]string{"a[*].b"}, "{a:[{b:*}]}"},
		{[]string{"a[?b=='x'].c"}, "{a:[{b:_,c:*}]}"},
		{[]string{"a[?b].c"}, "{a:[{b:{**:_},c:*}]}"},
		{[]string{"length(a)"}, "{a:{**:_}}"},
		{[]string{"length(a[]) > `0`"}, "{a:[[_]]}"},
		{[]string{"a.*.b"}, "{a:{**:{b:*}}}"},
		{[]string{"status != 'DELETING'"}, "{status:_}"},
		{[]string{"a == b"}, "{a:*,b:*}"},
		{[]string{"a || b"}, "{a:*,b:*}"},
		{[]string{"!a"}, "{a:{**:_}}"},
		{[]string{"contains(a[*].b, `false`)"}, "{a:[{b:_}]}"},
		{[]string{"sort_by(a, &k)[0].v"}, "{a:[{k:_,v:*}]}"},
		{[]string{"max_by(a, &k).v"}, "{a:[{k:_,v:*}]}"},
		{[]string{"map(&k, a)"}, "{a:[{k:*}]}"},
		{[]string{"[a, b.c]"}, "{a:*,b:{c:*}}"},
		{[]string{"{x: a, y: b}.x"}, "{a:*}"},
		{[]string{"a | b"}, "{a:{b:*}}"},
		{[]string{"@"}, "*"},
		{[]string{"to_string(a)"}, "{a:*}"},
		{[]string{"merge(a, b).c"}, "{a:*,b:*}"},
		{[]string{"`1`"}, ""},
		{nil, ""},
		{[]string{"\"a.b\".c"}, `{"a.b":{c:*}}`},
		{[]string{"length(services[?!(length(deployments) == `1` && runningCount == desiredCount)]) == `0`"},
			"{services:[{deployments:{**:_},desiredCount:*,runningCount:*}]}"},
	}
	for _, tt := range tests {
		p, err := neededPaths(tt.exprs)
		if err != nil {
			t.Errorf("%q: %v", tt.exprs, err)
			continue
		}
		if got := p.String(); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.exprs, got, tt.want)
		}
	}
	if _, err := neededPaths([]string{"a.", "b"}); err == nil {
		t.Error("an invalid expression: no error")
	}
	p, _ := neededPaths([]string{"output.a", "input.b"})
	if got := p.Field("output").String(); got != "{a:*}" {
		t.Errorf("Field(output): got %s", got)
	}
	if p, _ := neededPaths([]string{"@", "a"}); !p.Everything() {
		t.Error("@: not everything")
	}
}

// modelExpressions returns every JMESPath argument of the waiter models in
// testdata.
func modelExpressions(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../waitermodel/testdata/waiter-models/*-waiters-2.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no waiter models: %v", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Waiters map[string]struct {
				Acceptors []struct{ Argument string }
			}
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, w := range m.Waiters {
			for _, a := range w.Acceptors {
				if a.Argument != "" && !seen[a.Argument] {
					seen[a.Argument] = true
					out = append(out, a.Argument)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// handExpressions exercise every kind of node and every function.
var handExpressions = []string{
	"a", "a.b", "a.b.c", "a[0]", "a[-1].b", "a[-2].b", "[a[-1].b, a[0].c]", "[a[-1].x, a[0].b[-1]]", "a[0].b[-2].c", "a[1].b", "a[0].b[1]", "a[0].b || a[2].c", "a[1] | b[0]", "[a[0], a[1].b]", "a[1:]", "a[::-1].b", "a[:2][0]", "a[*]", "a[*].b", "a[].b", "a[][]", "a[].b[].c",
	"a[?b]", "a[?b].c", "a[?b=='x']", "a[?b!=`1`].c", "a[?b > `1`]", "a[?b < c]", "a[?b >= `0.5` && c]", "a[?!b]",
	"a[?b == c].d", "a[?b == `[1]`]", "a[?b == `{}`]", "a == b", "a != b", "a.b == `null`", "a > b", "a <= `2`",
	"a || b", "a && b", "a.b || a.c", "!a", "!a.b", "(a || b).c", "a | b", "a | [0]", "a[] | [0]", "a | length(@)",
	"[a, b]", "[a.b, c[0]]", "[a, b][0]", "{x: a, y: b.c}", "{x: a}.x", "a.[b, c]", "a.{x: b}", "a[].[b, c]", "a[].[b][]",
	"length(a)", "length(a) > `0`", "length(a[]) > `0`", "length(a[?b]) == length(a)", "length(a.b) == `1`",
	"abs(a)", "ceil(a.b)", "floor(a)", "to_number(a)", "type(a)", "type(a.b)", "starts_with(a, 'x')", "ends_with(a.b, c)",
	"avg(a)", "sum(a[].b)", "max(a)", "min(a[].b)", "sort(a)", "sort(a[].b)[0]", "join(', ', a)", "join(a, b)",
	"contains(a, 'x')", "contains(a[].b, `1`)", "contains(a, b)", "contains(a.b, c)", "not_null(a, b.c, `1`)",
	"not_null(a.b)", "to_array(a)", "to_array(a)[0]", "to_array(a.b).c", "reverse(a)", "reverse(a)[0].b",
	"sort_by(a, &b)", "sort_by(a, &b)[].c", "min_by(a, &b).c", "max_by(a, &b)", "map(&b, a)", "map(&b.c, a)[0]",
	"merge(a, b)", "merge(a).x", "to_string(a)", "to_string(a.b)", "keys(a) == `[]`", "length(keys(a))",
	"length(values(a))", "a.*", "a.*.b", "*.b", "length(a.*)", "a.*.to_string(@)", "@", "@.a", "a[?@ == 'x']",
	"a[?contains(b, 'x')].c", "a[?length(b) > `1`]", "`true`", "'x'", "a.\"b c\"", "a[0][1]", "a[].b | [0]",
	"contains(AutoScalingGroups[].[length(Instances[?LifecycleState=='InService']) >= MinSize][], `false`)",
}

// orderFree reports whether the result of e may depend on the iteration
// order of Go maps (value projections, keys, values): such results are
// compared sorted.
func orderFree(e string) bool {
	return strings.Contains(e, "*.") || strings.HasSuffix(e, "*") || strings.Contains(e, "keys(") ||
		strings.Contains(e, "values(") || strings.Contains(e, "length(a.*)")
}

var identRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*|'[^']*'`)

// docGen makes random documents whose keys are the identifiers of the
// expressions, so the documents exercise their paths: present, missing,
// null, of the wrong type, nested arrays.
type docGen struct {
	r       *rand.Rand
	keys    []string
	strings []string
}

func newDocGen(seed uint64, exprs []string) *docGen {
	g := &docGen{r: rand.New(rand.NewPCG(seed, 1))}
	ks, ss := map[string]bool{}, map[string]bool{"x": true, "": true, "running": true}
	for _, e := range exprs {
		for _, m := range identRe.FindAllString(e, -1) {
			if strings.HasPrefix(m, "'") {
				ss[strings.Trim(m, "'")] = true
			} else {
				ks[m] = true
				ss[m] = true
			}
		}
	}
	ks["b c"], ks["other"] = true, true
	for k := range ks {
		g.keys = append(g.keys, k)
	}
	for s := range ss {
		g.strings = append(g.strings, s)
	}
	sort.Strings(g.keys)
	sort.Strings(g.strings)
	return g
}

func (g *docGen) value(depth int) any {
	n := 10
	if depth <= 0 {
		n = 5
	}
	switch g.r.IntN(n) {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return float64(g.r.IntN(4)) - 1 + []float64{0, 0, 0.5}[g.r.IntN(3)]
	case 3, 4:
		return g.strings[g.r.IntN(len(g.strings))]
	case 5, 6:
		arr := []any{}
		for range g.r.IntN(4) {
			arr = append(arr, g.value(depth-1))
		}
		return arr
	default:
		return g.object(depth - 1)
	}
}

// object has each key with probability 1/2 (so most paths exist),
// sometimes no key at all, and sometimes two keys with the same value.
func (g *docGen) object(depth int) map[string]any {
	m := map[string]any{}
	if g.r.IntN(8) == 0 {
		return m
	}
	for _, k := range g.keys {
		if g.r.IntN(2) == 0 {
			m[k] = g.value(depth)
		}
	}
	if g.r.IntN(3) == 0 { // equal siblings, for a == b
		m[g.keys[g.r.IntN(len(g.keys))]] = m[g.keys[g.r.IntN(len(g.keys))]]
	}
	return m
}

// evalText evaluates e on doc: the result as JSON (sorted at the top level
// for order-free expressions), or "error".
func evalText(e *jmesExpr, doc any) string {
	v, err := e.search(doc)
	if err != nil {
		return "error"
	}
	if arr, ok := v.([]any); ok && orderFree(e.src) {
		parts := make([]string, len(arr))
		for i, x := range arr {
			parts[i] = shownJSON(x, 0)
		}
		sort.Strings(parts)
		return "sorted " + strings.Join(parts, ",")
	}
	return shownJSON(v, 0)
}

// TestPrunedDocumentsGiveTheSameResults is the property the decoder rests
// on: for every expression (the waiter models' and a hand-written set
// covering every node and function) and many random documents shaped after
// them, the expression evaluated on the document built for it equals the
// expression evaluated on the whole document, errors included.
func TestPrunedDocumentsGiveTheSameResults(t *testing.T) {
	t.Parallel()
	exprs := append(modelExpressions(t), handExpressions...)
	docs := 300
	if testing.Short() {
		docs = 50
	}
	for _, src := range exprs {
		e, err := compileJMESPath(src)
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		dec := newDecoder([]string{src}, false)
		g := newDocGen(uint64(len(src)), []string{src}) // keys of this expression, so paths exist
		pruned, mismatches := 0, 0
		for i := range docs {
			var doc any = g.object(4)
			if i%10 == 0 {
				doc = g.value(4) // not always an object
			}
			raw, _ := json.Marshal(doc)
			full, err := acceptor.DecodeJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			got, err := dec(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("%q: decoding %s: %v", src, raw, err)
			}
			if shownJSON(got, 0) != shownJSON(full, 0) {
				pruned++
			}
			if w, g := evalText(e, full), evalText(e, got); w != g {
				mismatches++
				if mismatches <= 3 {
					t.Errorf("%q on %s:\n got %s\nwant %s\n(pruned doc %s)", src, raw, g, w, shownJSON(got, 0))
				}
			}
		}
		if p, _ := neededPaths([]string{src}); !p.Everything() && pruned == 0 && src != "@" {
			t.Errorf("%q: the decoder never pruned anything (%s)", src, p)
		}
	}
}

// TestPrunedEdgeCases pins, one document each, the observations the
// analysis must keep: truthiness of objects with other keys, key counts,
// projections that drop nulls, nested arrays under a flatten, deep
// equality, comparisons with literals, function type checks and the
// library's panic in contains().
func TestPrunedEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, doc, want string }{
		{"(a || b).c", `{"a":{"x":1},"b":{"c":2}}`, `null`},
		{"(a && b).c", `{"a":{"x":1},"b":{"c":2}}`, `2`},
		{"!a", `{"a":{"x":1}}`, `false`},
		{"a[?b].c", `{"a":[{"b":{"x":1},"c":1},{"b":{},"c":2}]}`, `[1]`},
		{"a[?!b].c", `{"a":[{"b":[0],"c":1},{"b":[],"c":2}]}`, `[2]`},
		{"length(a)", `{"a":{"x":1,"y":{"z":2}}}`, `2`},
		{"length(a[?b])", `{"a":[{"b":"s"},{"b":""},{"c":1}]}`, `1`},
		{"length(a[].b)", `{"a":[{"b":null},{"b":{"x":1}},{"c":1}]}`, `1`},
		{"length(a[])", `{"a":[[1,[2]],{"b":1},null,3]}`, `4`},
		{"a[].b", `{"a":[[{"b":1}],{"b":2},[[{"b":3}]]]}`, `[1,2]`},
		{"a[][].b", `{"a":[[[{"b":3}]],{"b":2}]}`, `[3,2]`},
		{"a == b", `{"a":{"x":[1]},"b":{"x":[1]}}`, `true`},
		{"a == b", `{"a":{"x":[1]},"b":{"x":[2]}}`, `false`},
		{"a == `1`", `{"a":{"x":1}}`, `false`},
		{"a[?b == c].d", `{"a":[{"b":{"k":1},"c":{"k":1},"d":1},{"b":{"k":1},"c":{"k":2},"d":2}]}`, `[1]`},
		{"a > `1`", `{"a":2}`, `true`},
		{"length(a.*)", `{"a":{"x":1,"y":null}}`, `3`},
		{"a.*.to_string(@)", `{"a":{"x":1}}`, `["null","1"]`},
		{"keys(a)", `{"a":{"x":{"deep":1}}}`, `["x"]`},
		{"contains(a, b)", `{"a":[{"x":1}],"b":{"x":1}}`, `error`},
		{"contains(a, `1`)", `{"a":[{"x":1},1]}`, `true`},
		{"contains(a[].b, `false`)", `{"a":[{"b":true},{"b":false}]}`, `true`},
		{"sort_by(a, &k)[0].v", `{"a":[{"k":2,"v":"b","w":0},{"k":1,"v":"a"}]}`, `"a"`},
		{"max_by(a, &k)", `{"a":[{"k":2,"v":"b"},{"k":1,"v":"a"}]}`, `{"k":2,"v":"b"}`},
		{"min_by(a, &k)", `{"a":[{"k":"x"},{"k":1}]}`, `error`},
		{"map(&b, a)", `{"a":[{"b":1},{"c":2},3]}`, `[1,null,null]`},
		{"to_array(a)[0].b", `{"a":{"b":1}}`, `1`},
		{"not_null(a.b, c)", `{"a":{"b":null},"c":{"d":1}}`, `{"d":1}`},
		{"[a.b, c]", `{"a":{"b":1,"x":2},"c":3}`, `[1,3]`},
		{"a.[b]", `{"a":null}`, `null`},
		{"a.[`1`]", `{"a":{"x":1}}`, `[1]`},
		{"a.{k: `1`}", `{"a":[2]}`, `{"k":1}`},
		{"length(a.[b])", `{"a":{"b":null,"x":1}}`, `1`},
		{"abs(a)", `{"a":{"x":1}}`, `error`},
		{"length(a.b)", `{"a":{"b":5}}`, `error`},
		{"avg(a)", `{"a":[1,"x"]}`, `error`},
		{"join(',', a[].b)", `{"a":[{"b":"x"},{"b":"y","c":1}]}`, `"x,y"`},
		{"reverse(a)[0].b", `{"a":[{"b":1},{"b":2,"c":3}]}`, `2`},
		{"a[-1].b", `{"a":[{"b":1},{"b":2}]}`, `2`},
		{"a[1:].b", `{"a":[{"b":1},{"b":2},{"c":3}]}`, `[2]`},
		{"a[1:] | [0].b", `{"a":[{"b":1},{"b":2}]}`, `2`},
		{"a | length(@)", `{"a":{"x":1,"y":2}}`, `2`},
		{"{x: a}.x", `{"a":{"k":1}}`, `{"k":1}`},
		{"type(a)", `{"a":{"k":1}}`, `"object"`},
	}
	for _, tt := range tests {
		e, err := compileJMESPath(tt.expr)
		if err != nil {
			t.Errorf("%q: %v", tt.expr, err)
			continue
		}
		full, _ := acceptor.DecodeJSON(strings.NewReader(tt.doc))
		pruned, err := newDecoder([]string{tt.expr}, false)(strings.NewReader(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := evalText(e, full); got != tt.want && !orderFree(tt.expr) {
			t.Errorf("%q on the whole document: got %s, want %s (the case is wrong)", tt.expr, got, tt.want)
		}
		if w, g := evalText(e, full), evalText(e, pruned); w != g {
			t.Errorf("%q on %s: pruned %s gives %s, want %s", tt.expr, tt.doc, shownJSON(pruned, 0), g, w)
		}
	}
}

// TestDecoderForScopes checks which part of stdout a chain's decoder keeps
// when the chain has an Input and its matchers address the output or the
// input/output document.
func TestDecoderForScopes(t *testing.T) {
	t.Parallel()
	doc := `{"a":1,"b":2,"c":3,"output":{"a":4}}`
	mk := func(expr string, scope Scope) acceptor.Acceptor {
		m, err := NewPathMatcher(expr, Path, true)
		if err != nil {
			t.Fatal(err)
		}
		m.scope = scope
		return acceptor.Acceptor{State: acceptor.StateSuccess, Matcher: m}
	}
	tests := []struct {
		name  string
		chain acceptor.Chain
		want  string
	}{
		{"flag, no input", acceptor.Chain{Acceptors: []acceptor.Acceptor{mk("a", ScopeDocument)}}, `{"a":1}`},
		{"flag, input", acceptor.Chain{Input: map[string]any{}, Acceptors: []acceptor.Acceptor{mk("output.b", ScopeDocument)}}, `{"b":2}`},
		{"smithy output, input", acceptor.Chain{Input: map[string]any{}, Acceptors: []acceptor.Acceptor{mk("c", ScopeOutput)}}, `{"c":3}`},
		{"smithy inputOutput, no input", acceptor.Chain{Acceptors: []acceptor.Acceptor{mk("output.a == input.x", ScopeInputOutput)}}, `{"a":1}`},
		{"mixed", acceptor.Chain{Input: 1.0, Acceptors: []acceptor.Acceptor{mk("c", ScopeOutput), mk("output.output.a", ScopeDocument)}}, `{"c":3,"output":{"a":4}}`},
		{"no path matcher", acceptor.Chain{Acceptors: []acceptor.Acceptor{{Matcher: acceptor.ExitMatcher(acceptor.Codes{{Lo: 0, Hi: 0}})}}}, `{}`},
	}
	for _, tt := range tests {
		v, err := DecoderFor(&tt.chain)(strings.NewReader(doc))
		if err != nil || shownJSON(v, 0) != tt.want {
			t.Errorf("%s: got %s, %v; want %s", tt.name, shownJSON(v, 0), err, tt.want)
		}
	}
	q, err := NewQuery("b")
	if err != nil {
		t.Fatal(err)
	}
	c := acceptor.Chain{Input: 1.0, Acceptors: []acceptor.Acceptor{mk("c", ScopeOutput)}}
	v, _ := DecoderFor(&c, q)(strings.NewReader(doc))
	if got := shownJSON(v, 0); got != `{"b":2,"c":3}` {
		t.Errorf("with a query: got %s", got)
	}
}

func TestNewDecoderFallsBackToEverything(t *testing.T) {
	t.Parallel()
	doc := `{"a":1,"b":[2]}`
	for _, exprs := range [][]string{nil, {"a."}, {"a.=x"}, {"to_string(@)"}} {
		v, err := newDecoder(exprs, false)(strings.NewReader(doc))
		if err != nil || shownJSON(v, 0) != doc {
			t.Errorf("%q: got %s, %v", exprs, shownJSON(v, 0), err)
		}
	}
	v, _ := newDecoder([]string{"output.b"}, true)(strings.NewReader(doc))
	if got := shownJSON(v, 0); got != `{"b":[2]}` {
		t.Errorf("wrapped: got %s", got)
	}
	// A path flag's argument counts as its expression.
	v, _ = newDecoder([]string{"b[0]=2", "x==`1`"}, false)(strings.NewReader(doc))
	if got := shownJSON(v, 0); got != `{"b":[2]}` {
		t.Errorf("EXPR=VALUE: got %s", got)
	}
}

func FuzzDecoder(f *testing.F) {
	for _, d := range decodeCases {
		f.Add(d)
	}
	pruned := newDecoder([]string{"a.b[0].c", "e[1][0]", "length(f)"}, false)
	f.Fuzz(func(t *testing.T, doc string) {
		sameDecode(t, "full", decodeAll, doc, true)
		sameDecode(t, "pruned", pruned, doc, false)
	})
}

// describeInstances writes a describe-instances-like document with n
// instances, 10 per reservation, about 800 bytes each (80 MB for 100 000).
func describeInstances(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"Reservations":[`)
	for r := 0; r < n/10; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"Groups":[],"OwnerId":"123456789012","ReservationId":"r-%017x","Instances":[`, r)
		for i := 0; i < 10; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			id := r*10 + i
			fmt.Fprintf(&b, `{"AmiLaunchIndex":%d,"ImageId":"ami-0abcdef1234567890","InstanceId":"i-%017x",`+
				`"InstanceType":"t3.micro",`+
				`"Placement":{"AvailabilityZone":"eu-west-1a","Tenancy":"default"},`+
				`"PrivateDnsName":"ip-10-0-%d-%d.eu-west-1.compute.internal","PrivateIpAddress":"10.0.%d.%d",`+
				`"State":{"Code":16,"Name":"running"},`+
				`"SubnetId":"subnet-0123456789abcdef0","VpcId":"vpc-0123456789abcdef0",`+
				`"BlockDeviceMappings":[{"DeviceName":"/dev/xvda","Ebs":{"DeleteOnTermination":true,"Status":"attached","VolumeId":"vol-0123456789abcdef0"}}],`+
				`"SecurityGroups":[{"GroupName":"default","GroupId":"sg-0123456789"}],`+
				`"Tags":[{"Key":"Name","Value":"web-%d"},{"Key":"team","Value":"ops \u00e9quipe"}],`+
				`"CpuOptions":{"CoreCount":1,"ThreadsPerCore":2.0},"MetadataOptions":{"HttpTokens":"required","HttpPutResponseHopLimit":2}}`,
				i, id, id/256%256, id%256, id/256%256, id%256, id)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func TestDescribeInstancesDecode(t *testing.T) {
	t.Parallel()
	doc := describeInstances(200)
	full, err := acceptor.DecodeJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	m, err := PathMatcher("Reservations[].Instances[].State.Name=running", PathAll)
	if err != nil {
		t.Fatal(err)
	}
	c := acceptor.Chain{Acceptors: []acceptor.Acceptor{{State: acceptor.StateSuccess, Matcher: m}}, Fallback: acceptor.WaitFallback}
	c.Decode = DecoderFor(&c)
	got, err := c.Decode(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	e := m.(*PathMatch).expr
	if evalText(e, got) != evalText(e, full) {
		t.Fatal("the pruned document gives another result")
	}
	d := c.Evaluate(&acceptor.Attempt{Stdout: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(doc)), nil }})
	if d.Directive != acceptor.Succeed {
		t.Fatalf("got %v (%v)", d.Directive, d.Warnings)
	}
}

// BenchmarkDecode compares DecodeJSON with the pruning decoder on a
// describe-instances output of 100 000 instances (about 80 MB). Run with
// -benchmem; retained-MB is the heap the decoded document keeps alive.
func BenchmarkDecode(b *testing.B) {
	doc := describeInstances(100000)
	pruned := newDecoder([]string{"Reservations[].Instances[].State.Name"}, false)
	for _, bc := range []struct {
		name   string
		decode func(io.Reader) (any, error)
	}{
		{"DecodeJSON", acceptor.DecodeJSON},
		{"full", decodeAll},
		{"pruned", pruned},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			var peak uint64
			for b.Loop() {
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				v, err := bc.decode(bytes.NewReader(doc))
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				var after runtime.MemStats
				runtime.ReadMemStats(&after)
				if h := after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc); h > peak {
					peak = h
				}
				runtime.KeepAlive(v)
			}
			b.ReportMetric(float64(peak)/(1<<20), "retained-MB")
		})
	}
}

// TestIndexKeepsOneElement: an index keeps, of the array, the element it
// selects as the rest of the expression needs it and every other element
// as a placeholder of its type (so the length and the indexes do not
// change; a scalar is kept whole, an array keeps its elements' types); an
// index from the end too, though the decoder learns which element it
// selects only at the end of the array.
func TestIndexKeepsOneElement(t *testing.T) {
	t.Parallel()
	doc := `{"Reservations":[{"Id":"r-0","Instances":[{"InstanceId":"i-0a"},{"InstanceId":"i-0b"}]},` +
		`{"Id":"r-1","Instances":[{"InstanceId":"i-1a","State":"running"},{"InstanceId":"i-1b"}]},"x",null,[1]]}`
	tests := []struct{ expr, kept, result string }{
		{"Reservations[1].Instances[0].InstanceId", `{"Reservations":[{},{"Instances":[{"InstanceId":"i-1a"},{}]},"x",null,[1]]}`, `"i-1a"`},
		{"Reservations[0].Id", `{"Reservations":[{"Id":"r-0"},{},"x",null,[1]]}`, `"r-0"`},
		{"Reservations[4][0]", `{"Reservations":[{},{},"x",null,[1]]}`, `1`},
		{"Reservations[9].Id", `{"Reservations":[{},{},"x",null,[1]]}`, `null`},
		{"Reservations[-1][0]", `{"Reservations":[{},{},"x",null,[1]]}`, `1`},
		{"Reservations[-4].Id", `{"Reservations":[{},{"Id":"r-1"},"x",null,[1]]}`, `"r-1"`},
		// Within the last five, every element keeps what the index from
		// the end reaches in it.
		{"Reservations[-5].Instances[-1].InstanceId", `{"Reservations":[{"Instances":[{},{"InstanceId":"i-0b"}]},{"Instances":[{},{"InstanceId":"i-1b"}]},"x",null,[1]]}`, `"i-0b"`},
		{"[Reservations[-5].Id, Reservations[0].Instances[-1]]", `{"Reservations":[{"Id":"r-0","Instances":[{},{"InstanceId":"i-0b"}]},{"Id":"r-1","Instances":[{},{"InstanceId":"i-1b"}]},"x",null,[1]]}`, `["r-0",{"InstanceId":"i-0b"}]`},
		// The first element, built whole while among the last three, then
		// cut to what Reservations[0] reaches.
		{"[Reservations[-3], Reservations[0].Instances[-2].InstanceId]", `{"Reservations":[{"Instances":[{"InstanceId":"i-0a"},{"InstanceId":"i-0b"}]},{},"x",null,[1]]}`, `["x","i-0a"]`},
	}
	for _, tt := range tests {
		got, err := newDecoder([]string{tt.expr}, false)(strings.NewReader(doc))
		if err != nil {
			t.Fatalf("%q: %v", tt.expr, err)
		}
		if kept := shownJSON(got, 0); kept != tt.kept {
			t.Errorf("%q kept %s, want %s", tt.expr, kept, tt.kept)
		}
		e, _ := compileJMESPath(tt.expr)
		full, _ := acceptor.DecodeJSON(strings.NewReader(doc))
		if w, g := evalText(e, full), evalText(e, got); g != tt.result || w != tt.result {
			t.Errorf("%q: %s on the pruned document, %s on the whole one, want %s", tt.expr, g, w, tt.result)
		}
	}
}
