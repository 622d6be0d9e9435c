package jmes

import (
	"strings"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

// TestExactIntegers: integers beyond 2^53 keep their digits where the
// library does not need them as float64 (an expression that selects and
// reshapes: EXPR=VALUE on a path, --query of a path), as python jmespath
// keeps them; elsewhere (functions, filters, comparisons) they are float64.
func TestExactIntegers(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"id": 12345678901234567890, "neg": -12345678901234567890, "edge": 9007199254740993,
		"p60": 1152921504606846976, "small": 42, "f": 1.5e20, "big": 1e300,
		"ids": [12345678901234567890, 1], "items": [{"id": 12345678901234567891, "n": 2}, {"id": 3, "n": 0}]}`)
	for _, tt := range []struct{ expr, json, text string }{
		{"id", "12345678901234567890", "12345678901234567890"},
		{"neg", "-12345678901234567890", "-12345678901234567890"},
		{"edge", "9007199254740993", "9007199254740993"},
		{"p60", "1152921504606846976", "1152921504606846976"},
		{"small", "42", "42"},
		{"f", "150000000000000000000", "150000000000000000000"}, // a float token stays a float
		{"ids", "[12345678901234567890,1]", "12345678901234567890\n1"},
		{"ids[0]", "12345678901234567890", "12345678901234567890"},
		{"items[].id", "[12345678901234567891,3]", "12345678901234567891\n3"},
		{"items[*].{i: id}", `[{"i":12345678901234567891},{"i":3}]`, `{"i":12345678901234567891}` + "\n" + `{"i":3}`},
		{"{a: id, b: [small]}", `{"a":12345678901234567890,"b":[42]}`, `{"a":12345678901234567890,"b":[42]}`},
		{"missing || id", "12345678901234567890", "12345678901234567890"},
		{"id | @", "12345678901234567890", "12345678901234567890"},
		// The library needs float64 here: its answer stands.
		{"sort(ids)", "[1,12345678901234567000]", "1\n12345678901234567000"},
		{"items[?n > `1`].id", "[12345678901234567000]", "12345678901234567000"},
		{"max(ids)", "12345678901234567000", "12345678901234567000"},
	} {
		q, err := NewQuery(tt.expr)
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		got, err := q.ApplyAttempt(stdoutOf(doc))
		if err != nil || strings.TrimSuffix(string(got), "\n") != tt.json {
			t.Errorf("--query %s: got %q, %v; want %s", tt.expr, got, err, tt.json)
		}
		got, err = q.ApplyAttemptText(stdoutOf(doc))
		if err != nil || strings.TrimSuffix(string(got), "\n") != tt.text {
			t.Errorf("--query %s --output text: got %q, %v; want %s", tt.expr, got, err, tt.text)
		}
	}

	for _, tt := range []struct {
		arg   string
		mode  PathMode
		match bool
		value string
	}{
		{"id=12345678901234567890", Path, true, "12345678901234567890"},
		{"id=12345678901234567891", Path, false, "12345678901234567890"},
		{"id=`12345678901234567890`", Path, true, "12345678901234567890"},
		{"id=12345678901234567000", Path, false, "12345678901234567890"},
		{"edge=9007199254740992", Path, false, "9007199254740993"},
		{"edge=9007199254740993", Path, true, "9007199254740993"},
		{"p60=1152921504606846976", Path, true, "1152921504606846976"},
		{"p60=1152921504606846977", Path, false, "1152921504606846976"},
		{"neg=-12345678901234567890", Path, true, "-12345678901234567890"},
		{"small=42", Path, true, "42"},
		{"ids=[12345678901234567890,1]", Path, true, "[12345678901234567890,1]"},
		{"ids=[12345678901234567891,1]", Path, false, "[12345678901234567890,1]"},
		{"items[].id=12345678901234567891", PathAny, true, "[12345678901234567891,3]"},
		{"items[].id=12345678901234567890", PathAny, false, "[12345678901234567891,3]"},
		{"ids[:1]=12345678901234567890", PathAll, true, "[12345678901234567890]"},
	} {
		m, err := PathMatcher(tt.arg, tt.mode)
		if err != nil {
			t.Fatalf("%s: %v", tt.arg, err)
		}
		c := &acceptor.Chain{Acceptors: []acceptor.Acceptor{{State: acceptor.StateSuccess, Matcher: m, Name: tt.arg}}}
		c.Decode = DecoderFor(c)
		d := c.Evaluate(stdoutOf(doc))
		if matched := d.Source == acceptor.FromAcceptor; matched != tt.match || d.Trace[0].Value != tt.value {
			t.Errorf("%s %s: matched %t, saw %s; want %t, %s", tt.mode, tt.arg, matched, d.Trace[0].Value, tt.match, tt.value)
		}
	}

	// With an input, {"input": …, "output": stdout}.
	m, err := PathMatcher("output.id=12345678901234567890", Path)
	if err != nil {
		t.Fatal(err)
	}
	c := &acceptor.Chain{Acceptors: []acceptor.Acceptor{{State: acceptor.StateSuccess, Matcher: m, Name: "in"}}, Input: map[string]any{"id": "x"}}
	c.Decode = DecoderFor(c)
	if d := c.Evaluate(stdoutOf(doc)); d.Source != acceptor.FromAcceptor {
		t.Errorf("with an input: %v saw %s", d.Directive, d.Trace[0].Value)
	}
}

// BenchmarkExactCheck: what looking for numbers that may have lost digits
// costs a path acceptor on a 2000-instance describe-instances output (the
// walk of each result), against the same acceptor without it.
func BenchmarkExactCheck(b *testing.B) {
	doc := describeInstances(2000)
	for _, exact := range []bool{false, true} {
		name := map[bool]string{false: "without", true: "with"}[exact]
		b.Run(name, func(b *testing.B) {
			m, err := PathMatcher("Reservations[].Instances[].State.Name=running", PathAll)
			if err != nil {
				b.Fatal(err)
			}
			m.(*PathMatch).expr.exact = exact
			c := &acceptor.Chain{Acceptors: []acceptor.Acceptor{{State: acceptor.StateSuccess, Matcher: m, Name: "all"}}}
			c.Decode = DecoderFor(c)
			for b.Loop() {
				if d := c.Evaluate(stdoutOf(doc)); d.Source != acceptor.FromAcceptor {
					b.Fatal("no match")
				}
			}
		})
	}
}
