package jmes

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

// stdoutAttempt is a command attempt that exited 0 and printed out.
func stdoutAttempt(out string) *acceptor.Attempt {
	return &acceptor.Attempt{Number: 1, Stdout: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(out)), nil }}
}

func TestSplitPathArg(t *testing.T) {
	t.Parallel()
	tests := []struct {
		arg, expr, value string
		has              bool
	}{
		{"State.Name=running", "State.Name", "running", true},
		{"a", "a", "", false},
		{"a==b", "a==b", "", false},
		{"a == 'x'", "a == 'x'", "", false},
		{"a!=b", "a!=b", "", false},
		{"a<=b", "a<=b", "", false},
		{"a>=`1`", "a>=`1`", "", false},
		{"a[?b=='x'].c=true", "a[?b=='x'].c", "true", true},
		{"a==`1`=false", "a==`1`", "false", true},
		{"a=b=c", "a=b", "c", true},
		{`"a=b"=1`, `"a=b"`, "1", true},
		{`"a\"=b"`, `"a\"=b"`, "", false},
		{"'='", "'='", "", false},
		{`a='it\'s=x'`, "a", `'it\'s=x'`, true},
		{"a=`\"=\"`", "a", "`\"=\"`", true},
		{"`{\"k\":\"=\"}`", "`{\"k\":\"=\"}`", "", false},
		{"a=", "a", "", true},
		{"=x", "", "x", true},
		{"'abc=d", "'abc=d", "", false},
		{"length(a) >= `1`", "length(a) >= `1`", "", false},
		{`a="x=y"`, "a", `"x=y"`, true},
		{"a = running", "a ", " running", true},
	}
	for _, tt := range tests {
		e, v, has := splitPathArg(tt.arg)
		if e != tt.expr || v != tt.value || has != tt.has {
			t.Errorf("splitPathArg(%q) = %q, %q, %v; want %q, %q, %v", tt.arg, e, v, has, tt.expr, tt.value, tt.has)
		}
	}
}

func TestParseExpected(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want any
	}{
		{"running", "running"},
		{" running ", "running"},
		{"true", true},
		{"false", false},
		{"null", nil},
		{"3", 3.0},
		{"1.0", 1.0},
		{"-2e3", -2000.0},
		{`"x"`, "x"},
		{`"true"`, "true"},
		{`" x "`, " x "},
		{"[1]", []any{1.0}},
		{`{"a":[true]}`, map[string]any{"a": []any{true}}},
		{"", ""},
		{"True", "True"},
		{"1e400", "1e400"},
		{"'x'", "'x'"},
		{"`1`", 1.0},
		{"`true`", true},
		{"`\"x\"`", "x"},
		{"`[1, 2]`", []any{1.0, 2.0}},
		{"`running`", "running"},
		{"`", "`"},
	}
	for _, tt := range tests {
		if got := parseExpected(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseExpected(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestPathMatcherErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		arg  string
		mode PathMode
		want string
	}{
		{"a", PathAll, "want EXPR=VALUE: every element of the array EXPR yields must equal VALUE (a=true)"},
		{"a[?b=='x']", PathAny, "want EXPR=VALUE: some element of the array EXPR yields"},
		{"=x", Path, "empty JMESPath expression"},
		{" ", Path, "empty JMESPath expression"},
		{"a.=1", Path, `invalid JMESPath expression "a.": `},
		{"a[", Path, `invalid JMESPath expression "a["`},
		{"a\u0080", Path, `invalid JMESPath expression "a\u0080": the parser failed`},
		{"@(foo)", Path, "only a function name can be called"},
		{"`1`(a)", Path, "only a function name can be called"},
		{"lenght(a)=1", Path, "unknown function lenght()"},
		{"length(a, b)", Path, "length() takes 1 argument(s), not 2"},
		{"not_null()", Path, "not_null() takes at least 1 argument(s), not 0"},
		{"a[9999999999999999999999]", Path, "invalid JMESPath expression"},
		{strings.Repeat("a.", 40000) + "a", Path, "the limit is 65536"},
	}
	for _, tt := range tests {
		_, err := PathMatcher(tt.arg, tt.mode)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("PathMatcher(%.40q, %v): got %v, want …%s…", tt.arg, tt.mode, err, tt.want)
		}
	}
	if _, err := NewPathMatcher("a", PathMode(7), 1.0); err == nil {
		t.Error("unknown mode: no error")
	}
	if err := func() (err error) { _, err = PathMatcher("a", Path); return }(); err != nil {
		t.Errorf("a: %v", err)
	}
}

// TestPathComparators is the comparator edge-case table: JSON-typed
// equality without coercion, pathAll and pathAny only on non-empty arrays,
// missing fields, nulls, booleans, 1 and 1.0, nested values.
func TestPathComparators(t *testing.T) {
	t.Parallel()
	tests := []struct {
		doc  string
		arg  string
		mode PathMode
		want bool
	}{
		// No =VALUE: the JSON boolean true only.
		{`{"a":true}`, "a", Path, true},
		{`{"a":"true"}`, "a", Path, false},
		{`{"a":1}`, "a", Path, false},
		{`{"a":{"b":1}}`, "a", Path, false},
		{`{"a":[1]}`, "length(a) == `1`", Path, true},
		// Strings, numbers and booleans are not coerced.
		{`{"a":"1"}`, "a=1", Path, false},
		{`{"a":1}`, `a="1"`, Path, false},
		{`{"a":1}`, "a=1", Path, true},
		{`{"a":1}`, "a=1.0", Path, true},
		{`{"a":1.0}`, "a=1", Path, true},
		{`{"a":1}`, "a=true", Path, false},
		{`{"a":true}`, "a=true", Path, true},
		{`{"a":"true"}`, "a=true", Path, false},
		{`{"a":"true"}`, `a="true"`, Path, true},
		{`{"a":false}`, "a=false", Path, true},
		{`{"a":"running"}`, "a=running", Path, true},
		{`{"a":"running"}`, `a="running"`, Path, true},
		// Missing fields and nulls.
		{`{}`, "a.b.c=x", Path, false},
		{`{}`, "a=null", Path, true},
		{`{"a":null}`, "a=null", Path, true},
		{`{"a":"null"}`, "a=null", Path, false},
		{`{}`, "a=x", PathAll, false},
		{`{}`, "a=x", PathAny, false},
		{`{"a":null}`, "a=null", PathAll, false},
		{`{"a":[null]}`, "a=null", PathAll, true},
		// Arrays: pathAll needs every element and at least one.
		{`{"a":[]}`, "a=x", PathAll, false},
		{`{"a":[]}`, "a=x", PathAny, false},
		{`{"a":[]}`, "a=[]", Path, true},
		{`{"a":["x"]}`, "a=x", PathAll, true},
		{`{"a":["x","x"]}`, "a=x", PathAll, true},
		{`{"a":["x","y"]}`, "a=x", PathAll, false},
		{`{"a":["y","x"]}`, "a=x", PathAny, true},
		{`{"a":["x",1]}`, "a=x", PathAll, false},
		{`{"a":["x",1]}`, "a=1", PathAny, true},
		{`{"a":["1"]}`, "a=1", PathAny, false},
		// Scalars never match pathAll or pathAny.
		{`{"a":"x"}`, "a=x", PathAll, false},
		{`{"a":"x"}`, "a=x", PathAny, false},
		{`{"a":true}`, "a=true", PathAll, false},
		{`{"a":1}`, "a=1", PathAny, false},
		{`{"a":{"k":"x"}}`, "a=x", PathAny, false},
		// Nested values compare deeply, in any key order.
		{`{"a":{"b":[1,{"c":null}],"d":"e"}}`, `a={"d":"e","b":[1,{"c":null}]}`, Path, true},
		{`{"a":{"b":[1,{"c":null}],"d":"e"}}`, `a={"b":[1,{"c":null}]}`, Path, false},
		{`{"a":{"b":[1,2]}}`, `a={"b":[2,1]}`, Path, false},
		{`{"a":[[1]]}`, "a=1", PathAny, false},
		{`{"a":[[1],[1]]}`, "a=[1]", PathAll, true},
		{`{"a":[[1]]}`, "a[]=1", PathAll, true},
		{`{"r":[{"i":[{"s":"x"}]},{"i":[{"s":"x"},{"s":"x"}]}]}`, "r[].i[].s=x", PathAll, true},
		// Top-level documents that are not objects.
		{`["x","x"]`, "@=x", PathAll, true},
		{`"x"`, "@=x", Path, true},
		{``, "@={}", Path, true},
		{`  `, "length(@) == `0`", Path, true},
	}
	for _, tt := range tests {
		m, err := PathMatcher(tt.arg, tt.mode)
		if err != nil {
			t.Errorf("%q: %v", tt.arg, err)
			continue
		}
		for _, dec := range []func(string) *acceptor.Chain{
			func(string) *acceptor.Chain {
				return &acceptor.Chain{Acceptors: []acceptor.Acceptor{{State: acceptor.StateSuccess, Matcher: m}}}
			},
			func(string) *acceptor.Chain {
				c := &acceptor.Chain{Acceptors: []acceptor.Acceptor{{State: acceptor.StateSuccess, Matcher: m}}}
				c.Decode = DecoderFor(c)
				return c
			},
		} {
			c := dec(tt.doc)
			c.Fallback = acceptor.WaitFallback
			d := c.Evaluate(stdoutAttempt(tt.doc))
			if got := d.Directive == acceptor.Succeed; got != tt.want || len(d.Warnings) > 0 {
				t.Errorf("%s %q on %s: matched %v (value %q, warnings %q), want %v", tt.mode, tt.arg, tt.doc, got, d.Trace[0].Value, d.Warnings, tt.want)
			}
		}
	}
}

func TestPathMatchResult(t *testing.T) {
	t.Parallel()
	m := func(arg string, mode PathMode) acceptor.Matcher {
		t.Helper()
		p, err := PathMatcher(arg, mode)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := `{"a":[` + strings.Repeat(`"abcdefghij",`, 100) + `"é"]}`
	tests := []struct {
		name string
		m    acceptor.Matcher
		a    *acceptor.Attempt
		want acceptor.MatchResult
	}{
		{"path", m("a.b=x", Path), stdoutAttempt(`{"a":{"b":"x"}}`),
			acceptor.MatchResult{Matched: true, Value: `"x"`, Detail: `a.b is "x"`}},
		{"path true", m("a", Path), stdoutAttempt(`{"a":true}`),
			acceptor.MatchResult{Matched: true, Value: `true`, Detail: `a is true`}},
		{"pathAll", m("a[].s=x", PathAll), stdoutAttempt(`{"a":[{"s":"x"}]}`),
			acceptor.MatchResult{Matched: true, Value: `["x"]`, Detail: `every element of a[].s is "x"`}},
		{"pathAny", m("a=1", PathAny), stdoutAttempt(`{"a":[2,1]}`),
			acceptor.MatchResult{Matched: true, Value: `[2,1]`, Detail: `some element of a is 1`}},
		{"no match", m("a=x", Path), stdoutAttempt(`{"a":{"k":"<&>","b":[1e21,1e-7,0.5,100]}}`),
			acceptor.MatchResult{Value: `{"b":[1e+21,1e-7,0.5,100],"k":"<&>"}`}},
		{"missing", m("a=x", Path), stdoutAttempt(`{}`), acceptor.MatchResult{Value: `null`}},
		{"failed attempt", m("a=x", Path), &acceptor.Attempt{Failed: true, ExitCode: 1, Stdout: stdoutAttempt(`{"a":"x"}`).Stdout}, acceptor.MatchResult{}},
		{"not JSON", m("a=x", Path), stdoutAttempt(`a: x`), acceptor.MatchResult{Warning: "stdout is not JSON: invalid character 'a' looking for beginning of value"}},
		{"runtime error", m("length(a)=1", Path), stdoutAttempt(`{"a":null}`),
			acceptor.MatchResult{Warning: `evaluating "length(a)": Invalid type for: <nil>, expected: []jmespath.jpType{"string", "array", "object"}`}},
		{"library panic", m("contains(a, b)", Path), stdoutAttempt(`{"a":[{"k":1}],"b":{"k":1}}`),
			acceptor.MatchResult{Warning: `evaluating "contains(a, b)": the JMESPath library failed: runtime error: comparing uncomparable type map[string]interface {}`}},
		{"long value", m("a=x", PathAny), stdoutAttempt(big),
			acceptor.MatchResult{Value: ("[" + strings.Repeat(`"abcdefghij",`, 16))[:200] + "…"}},
	}
	for _, tt := range tests {
		got := tt.m.Match(&acceptor.Env{Attempt: tt.a})
		if got != tt.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
	if r := m("a", Path).Match(nil); r != (acceptor.MatchResult{}) {
		t.Errorf("nil env: %+v", r)
	}
	if r := m("a", Path).Match(&acceptor.Env{}); r != (acceptor.MatchResult{}) {
		t.Errorf("no attempt: %+v", r)
	}
	p := m("a[]=x", PathAll).(*PathMatch)
	if p.Expression() != "a[]" || p.Mode() != PathAll || p.Expected() != "x" || PathAny.String() != "pathAny" || Path.String() != "path" {
		t.Errorf("accessors: %q %v %v", p.Expression(), p.Mode(), p.Expected())
	}
}

// TestShownJSONRoundTrips: what a matcher shows parses back to the value
// it saw, numbers written as encoding/json writes them.
func TestShownJSONRoundTrips(t *testing.T) {
	t.Parallel()
	values := []any{
		"plain", "quote \" backslash \\ slash /", "\x00\x01\x1f\x7f\n\r\t\b\f", "é ü 😀", "\u2028\u2029", "<&>",
		"bad \xff utf-8", 0.0, -0.5, 1e20, 1e21, 123456789.125, 1e-6, 1e-7, -2.5e-300, math.MaxFloat64,
		true, false, nil, []any{}, map[string]any{}, map[string]any{"b": []any{1.0, "x"}, "a": nil},
	}
	for _, v := range values {
		s := shownJSON(v, 0)
		var back any
		if err := json.Unmarshal([]byte(s), &back); err != nil {
			t.Errorf("%#v: %s does not parse: %v", v, s, err)
			continue
		}
		if str, ok := v.(string); ok && strings.Contains(str, "\xff") {
			v = strings.ReplaceAll(str, "\xff", "\ufffd")
		}
		if !reflect.DeepEqual(back, v) {
			t.Errorf("%#v: %s parses back as %#v", v, s, back)
		}
		if f, ok := v.(float64); ok {
			std, _ := json.Marshal(f)
			if string(std) != s {
				t.Errorf("%v: %s, encoding/json writes %s", f, s, std)
			}
		}
	}
	if got := shownJSON(math.NaN(), 0); got != "NaN" {
		t.Errorf("NaN: %s", got)
	}
	if got := shownJSON(strings.Repeat("é", 200), 10); got != `"éééé…` {
		t.Errorf("cut inside a rune: %q", got)
	}
}

func TestJSONEqual(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b any
		want bool
	}{
		{nil, nil, true},
		{nil, false, false},
		{1.0, 1.0, true},
		{1.0, "1", false},
		{true, 1.0, false},
		{[]any{1.0}, []any{1.0}, true},
		{[]any{1.0}, []any{1.0, 2.0}, false},
		{map[string]any{"a": nil}, map[string]any{}, false},
		{map[string]any{"a": nil}, map[string]any{"b": nil}, false},
		{map[string]any{"a": []any{"x"}}, map[string]any{"a": []any{"x"}}, true},
		{1, 1, false}, // not JSON values
	}
	for _, tt := range tests {
		if got := jsonEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("jsonEqual(%#v, %#v) = %v", tt.a, tt.b, got)
		}
	}
}

func FuzzCompileJMESPath(f *testing.F) {
	for _, s := range []string{"a.b", "a[?b=='c'].d", "length(a)", "@(foo)", "a\u0080", "sort_by(a, &b)", "{a: b}", "a[1:2:0]"} {
		f.Add(s)
	}
	doc := map[string]any{"a": []any{map[string]any{"b": "c"}, []any{1.0}, "s", nil}, "b": map[string]any{"k": 1.0}}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := compileJMESPath(s) // must not panic
		if err != nil {
			return
		}
		e.search(doc) // must not panic
		neededPaths([]string{s})
	})
}

// BenchmarkShownJSON: why jsonWriter is hand-written. A path matcher shows
// about 200 bytes of its result; the writer stops there, encoding/json
// encodes the whole value first.
func BenchmarkShownJSON(b *testing.B) {
	doc, err := decodeAll(bytes.NewReader(describeInstances(2000)))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("shownJSON-200", func(b *testing.B) {
		for b.Loop() {
			_ = shownJSON(doc, maxShownValue)
		}
	})
	b.Run("shownJSON-all", func(b *testing.B) {
		for b.Loop() {
			_ = shownJSON(doc, 0)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestChainRecordsPathExpression: the core's Chain knows no PathMatch, yet
// its trace records a path matcher's expression, which Decision.Pending
// shows for a wait that goes on (`Table.TableStatus = "CREATING"`).
func TestChainRecordsPathExpression(t *testing.T) {
	t.Parallel()
	m, err := PathMatcher("Table.TableStatus=ACTIVE", Path)
	if err != nil {
		t.Fatal(err)
	}
	c := &acceptor.Chain{Acceptors: []acceptor.Acceptor{
		{State: acceptor.StateSuccess, Matcher: acceptor.ExitMatcher(acceptor.Codes{{Lo: 3, Hi: 3}})},
		{State: acceptor.StateSuccess, Matcher: m},
	}, Fallback: acceptor.WaitFallback}
	d := c.Evaluate(stdoutAttempt(`{"Table":{"TableStatus":"CREATING"}}`))
	if len(d.Trace) != 2 || d.Trace[0].Expr != "" || d.Trace[1].Expr != "Table.TableStatus" {
		t.Fatalf("trace %+v", d.Trace)
	}
	if got := d.Pending(); got != `Table.TableStatus = "CREATING"` {
		t.Errorf("Pending() = %q", got)
	}
}
