package jmes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

func TestStreamPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr string
		path string // "-": not streamed
	}{
		{"Reservations[].Instances[].State.Name", "Reservations"},
		{"Reservations[*].Instances[*].State.Name", "Reservations"},
		{"a.b[*].c", "a.b"},
		{"a.b[]", "a.b"},
		{"a[?b=='x'].c", "a"},
		{"a[].b[?c].d", "a"},
		{"[].x", ""},
		{"@[*]", ""},
		{"a[][0]", "a"},
		{"a[*][0].b", "a"},
		{"a", "-"},
		{"a.b", "-"},
		{"a[0]", "-"},
		{"a[1:].b", "-"},
		{"a[] | [0]", "-"},
		{"a.*.b", "-"},
		{"length(a[])", "-"},
		{"a[].b | [0]", "-"},
		{"(a[].b)[0]", "-"},
		{"[a[].b, c]", "-"},
		{"avg(a[].b)", "-"},
		{"a[].avg(b)", "a"},
		{"to_string(@)", "-"},
		{"@", "-"},
	}
	for _, tt := range tests {
		e, err := compileJMESPath(tt.expr)
		if err != nil {
			t.Fatalf("%q: %v", tt.expr, err)
		}
		path, ok := streamPath(e)
		got := "-"
		if ok {
			got = strings.Join(path, ".")
		}
		if got != tt.path {
			t.Errorf("streamPath(%q) = %q, want %q", tt.expr, got, tt.path)
		}
	}
}

// TestStreamedResultsAreTheSame is the property streaming rests on: for
// every expression (alone, and beside another one that shares the
// document), evaluated on what a streaming decoder returns, with arrays cut
// into chunks of 1 and 2 elements, the result equals the expression's on
// the whole document, errors included.
func TestStreamedResultsAreTheSame(t *testing.T) {
	t.Parallel()
	exprs := append(modelExpressions(t), handExpressions...)
	exprs = append(exprs, "a.b[*].c", "a.b[]", "a[].b[?c].d", "[].x", "@[*]", "a[*][0].b", "a[].avg(b)",
		"a[].b[].c[]", "a[*].b[*].c", "a[?b].c[]", "a[].b.c")
	docs := 120
	if testing.Short() {
		docs = 30
	}
	streamed := 0
	for i, src := range exprs {
		others := []string{src, exprs[(i*7+3)%len(exprs)], "length(a)", "a[0]"}
		for j, set := range [][]string{{src}, {src, others[1]}, {src, others[2]}, {src, others[3]}} {
			p, err := neededPaths(set)
			if err != nil {
				t.Fatal(err)
			}
			p.chunk = 1 + j%2
			dec := p.Decoder()
			compiled := make([]*jmesExpr, len(set))
			for k, s := range set {
				compiled[k], _ = compileJMESPath(s)
			}
			g := newDocGen(uint64(len(src)+j), set)
			for n := range docs {
				var doc any = g.object(4)
				if n%10 == 0 {
					doc = g.value(4)
				}
				raw, _ := json.Marshal(doc)
				full, _ := acceptor.DecodeJSON(bytes.NewReader(raw))
				got, err := dec(bytes.NewReader(raw))
				if err != nil {
					t.Fatalf("%q: decoding %s: %v", set, raw, err)
				}
				if sd, ok := got.(*streamedDoc); ok && len(sd.results) > 0 {
					streamed++
				}
				for _, e := range compiled {
					if w, g := evalText(e, full), evalText(e, got); w != g {
						t.Fatalf("%q among %q, chunks of %d, on %s:\n got %s\nwant %s", e.src, set, p.chunk, raw, g, w)
					}
				}
			}
		}
	}
	if streamed == 0 {
		t.Fatal("nothing was streamed")
	}
}

// TestStreamedEdgeCases: a repeated key (the last value counts), the
// streamed array of another type, missing, empty, an error in an element,
// and the document keeping the array for another expression.
func TestStreamedEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		exprs []string
		doc   string
		want  []string
	}{
		{[]string{"a[].b"}, `{"a":[{"b":1}],"a":{"b":2}}`, []string{`null`}},
		{[]string{"a[].b"}, `{"a":{"b":2},"a":[{"b":1},{"b":3}]}`, []string{`[1,3]`}},
		{[]string{"a[].b", "a"}, `{"a":[{"b":1}],"a":{"b":2}}`, []string{`null`, `{"b":2}`}},
		{[]string{"a[].b", "length(a)"}, `{"a":{"b":2},"a":[{"b":1},{"c":3}]}`, []string{`[1]`, `2`}},
		{[]string{"x.a[].b"}, `{"x":{"a":[{"b":1}]},"x":0}`, []string{`null`}},
		{[]string{"x.a[].b", "x"}, `{"x":{"a":[{"b":1}]},"x":{"y":1}}`, []string{`null`, `{"y":1}`}},
		{[]string{"a[].b"}, `{"a":"s"}`, []string{`null`}},
		{[]string{"a[].b"}, `{"x":1}`, []string{`null`}},
		{[]string{"a[].b"}, `{"a":[]}`, []string{`[]`}},
		{[]string{"a[].b"}, `[]`, []string{`null`}},
		{[]string{"[].b"}, `[{"b":1},[{"b":2}],3,{"b":null}]`, []string{`[1,2]`}},
		{[]string{"a[].abs(b)"}, `{"a":[{"b":-1},{"b":-2},{"b":"x"},{"b":4}]}`, []string{`error`}},
		{[]string{"a[].b", "a[1]"}, `{"a":[{"b":1,"c":9},{"b":2,"c":8},{"b":3}]}`, []string{`[1,2,3]`, `{"b":2,"c":8}`}},
		{[]string{"a[].b", "a[1].c"}, `{"a":[{"b":1,"c":9},{"b":2,"c":8},{"b":3}]}`, []string{`[1,2,3]`, `8`}},
		{[]string{"a[].b", "a.b[].c"}, `{"a":{"b":[{"c":1}]}}`, []string{`null`, `[1]`}},
	}
	for _, tt := range tests {
		p, err := neededPaths(tt.exprs)
		if err != nil {
			t.Fatal(err)
		}
		p.chunk = 2
		got, err := p.Decoder()(strings.NewReader(tt.doc))
		if err != nil {
			t.Fatalf("%q on %s: %v", tt.exprs, tt.doc, err)
		}
		full, _ := acceptor.DecodeJSON(strings.NewReader(tt.doc))
		for i, src := range tt.exprs {
			e, _ := compileJMESPath(src)
			if w := evalText(e, full); w != tt.want[i] {
				t.Errorf("%q on the whole %s: %s, want %s (the case is wrong)", src, tt.doc, w, tt.want[i])
			}
			if g := evalText(e, got); g != tt.want[i] {
				t.Errorf("%q among %q on %s, streamed: %s, want %s", src, tt.exprs, tt.doc, g, tt.want[i])
			}
		}
	}
}

// TestStreamedDocumentIsSmall checks what a stream saves: on a
// describe-instances-like document, the document built for
// Reservations[].Instances[].State.Name holds no reservation at all, and
// the result is every instance's state.
func TestStreamedDocumentIsSmall(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"Reservations":[`)
	for r := range 1200 {
		if r > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"ReservationId":"r-%d","Instances":[{"InstanceId":"i-%da","State":{"Code":16,"Name":"running"}},{"InstanceId":"i-%db","State":{"Name":"pending"}}]}`, r, r, r)
	}
	b.WriteString(`],"NextToken":null}`)
	src := "Reservations[].Instances[].State.Name"
	p, _ := neededPaths([]string{src})
	got, err := p.Decoder()(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	sd, ok := got.(*streamedDoc)
	if !ok {
		t.Fatalf("not streamed: %T", got)
	}
	if doc := shownJSON(sd.doc, 0); doc != `{}` {
		t.Errorf("the document kept %s", doc)
	}
	e, _ := compileJMESPath(src)
	v, err := e.search(got)
	arr, _ := v.([]any)
	if err != nil || len(arr) != 2400 || arr[0] != "running" || arr[1] != "pending" {
		t.Errorf("result: %d values, %v", len(arr), err)
	}
}
