package jmes

import (
	"errors"
	"strings"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

func TestNewQueryErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ expr, want string }{
		{"", "empty JMESPath expression"},
		{"a.", `invalid JMESPath expression "a."`},
		{"a\u0080", "the parser failed"},
		{"@(a)", "only a function name can be called"},
		{"sort_by(a)", "sort_by() takes 2 argument(s), not 1"},
	} {
		if _, err := NewQuery(tt.expr); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewQuery(%q): got %v, want …%s…", tt.expr, err, tt.want)
		}
	}
}

func TestQueryApply(t *testing.T) {
	t.Parallel()
	doc, err := acceptor.DecodeJSON(strings.NewReader(`{"b":[1,2.5,1e21,1e-7],"a":"<&> é","n":null,"e":[],"o":{"z":1,"y":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ expr, want, err string }{
		{"@", `{"a":"<&> é","b":[1,2.5,1e+21,1e-7],"e":[],"n":null,"o":{"y":{},"z":1}}` + "\n", ""},
		{"a", `"<&> é"` + "\n", ""},
		{"missing", "null\n", ""},
		{"b[0]", "1\n", ""},
		{"length(b) > `1`", "true\n", ""},
		{"o.*", "", ""}, // order of a value projection: checked below
		{"{x: b[1], y: e}", `{"x":2.5,"y":[]}` + "\n", ""},
		{"length(n)", "", `evaluating "length(n)": Invalid type for: <nil>`},
		{"avg(e)", "null\n", ""},
		{"sum([`1e308`, `1e308`])", "", `the result holds +Inf, which JSON cannot represent`},
		{"&a", "", "which JSON cannot represent"},
		{"contains([o], o)", "", "the JMESPath library failed"},
	}
	for _, tt := range tests {
		q, err := NewQuery(tt.expr)
		if err != nil {
			t.Fatalf("%q: %v", tt.expr, err)
		}
		if q.Expression() != tt.expr {
			t.Errorf("Expression() = %q", q.Expression())
		}
		b, err := q.apply(doc)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: got %q, %v; want error …%s…", tt.expr, b, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.expr, err)
		case tt.want != "" && string(b) != tt.want:
			t.Errorf("%q: got %q, want %q", tt.expr, b, tt.want)
		case tt.want == "" && string(b) != "[1,{}]\n" && string(b) != "[{},1]\n":
			t.Errorf("%q: got %q", tt.expr, b)
		}
	}
}

func TestQueryApplyAttempt(t *testing.T) {
	t.Parallel()
	q, err := NewQuery("Reservations[].Instances[].InstanceId | [0]")
	if err != nil {
		t.Fatal(err)
	}
	b, err := q.ApplyAttempt(stdoutAttempt(string(describeInstances(30))))
	if err != nil || string(b) != `"i-00000000000000000"`+"\n" {
		t.Errorf("got %q, %v", b, err)
	}
	all, _ := NewQuery("@")
	if b, err := all.ApplyAttempt(stdoutAttempt(" \n")); err != nil || string(b) != "{}\n" {
		t.Errorf("blank stdout: got %q, %v", b, err)
	}
	if b, err := all.ApplyAttempt(&acceptor.Attempt{}); err != nil || string(b) != "{}\n" {
		t.Errorf("no stdout: got %q, %v", b, err)
	}
	if _, err := all.ApplyAttempt(stdoutAttempt(`{"a":1} trailing`)); !errors.Is(err, acceptor.ErrNotJSON) {
		t.Errorf("not JSON: got %v", err)
	}
}

func TestQueryApplyText(t *testing.T) {
	t.Parallel()
	doc := map[string]any{
		"s": "ACTIVE", "n": 3.5, "b": true, "z": nil,
		"l":   []any{"a b", 1.0, false, nil, []any{"x"}, map[string]any{"k": "v"}},
		"o":   map[string]any{"k": "v\t\"q\""},
		"e":   []any{},
		"nan": nil,
	}
	for _, c := range []struct{ expr, want string }{
		{"s", "ACTIVE\n"},
		{"n", "3.5\n"},
		{"b", "true\n"},
		{"z", "\n"},
		{"missing", "\n"},
		{"l", "a b\n1\nfalse\n\n[\"x\"]\n{\"k\":\"v\"}\n"},
		{"o", "{\"k\":\"v\\t\\\"q\\\"\"}\n"},
		{"e", ""},
		{"[s, n]", "ACTIVE\n3.5\n"},
	} {
		q, err := NewQuery(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := q.applyText(doc)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.expr, got, err, c.want)
		}
	}
	q, _ := NewQuery("sum([`1e308`, `1e308`])")
	if got, err := q.applyText(doc); err == nil {
		t.Errorf("an infinite sum as text: got %q, want an error (+Inf)", got)
	}
}
