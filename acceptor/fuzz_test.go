package acceptor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseWaiters: a waiter model, botocore or Smithy, either loads or is
// refused with an error; never a panic. A model that loads has waiters, and
// every name it lists gives a waiter with a success acceptor. The seeds are
// the real models in testdata.
func FuzzParseWaiters(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/waiter-models/*.json")
	seeds = append(seeds, "testdata/smithy-model.json")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"version":2,"waiters":{"W":{"delay":1,"maxAttempts":2,"operation":"Op","acceptors":[{"matcher":"path","argument":"a","expected":true,"state":"success"}]}}}`))
	f.Add([]byte(`{"smithy":"2.0","shapes":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		wf, err := ParseWaiters(data)
		if err != nil {
			return
		}
		names := wf.Names()
		if len(names) == 0 {
			t.Fatalf("a model without waiters loaded")
		}
		for _, n := range names {
			w, err := wf.Waiter(n)
			if err != nil {
				t.Fatalf("Waiter(%q) of a listed name: %v", n, err)
			}
			success := false
			for _, a := range w.Acceptors {
				success = success || a.State == StateSuccess
			}
			if !success {
				t.Fatalf("waiter %s loaded without a success acceptor", n)
			}
		}
	})
}

// FuzzParseCodes: exit codes and statuses either parse or are refused; what
// parses is within bounds and prints back (String) to a list that parses to
// the same ranges.
func FuzzParseCodes(f *testing.F) {
	for _, s := range []string{"0", "1,3", "10-20", " 1 , 3 - 5 ", "255", "256", "-1", "20-10", "", ",", "0x1", "+1", "200", "500-599"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range []struct {
			parse  func(string) (Codes, error)
			lo, hi int
		}{{ParseExitCodes, 0, 255}, {ParseStatusCodes, 100, 599}} {
			c, err := p.parse(s)
			if err != nil {
				continue
			}
			if len(c) == 0 {
				t.Fatalf("%q parsed to no codes", s)
			}
			for _, r := range c {
				if r.Lo < p.lo || r.Hi > p.hi || r.Lo > r.Hi {
					t.Fatalf("%q parsed to %d-%d, outside %d-%d", s, r.Lo, r.Hi, p.lo, p.hi)
				}
			}
			back, err := p.parse(c.String())
			if err != nil || !reflect.DeepEqual(back, c) {
				t.Fatalf("%q → %q → %v, %v", s, c.String(), back, err)
			}
		}
	})
}

// FuzzSplitPathArg: EXPR=VALUE splitting is a round trip: EXPR, "=" and
// VALUE put back together give the argument; without a value the argument
// is EXPR. A VALUE with no "=" and an EXPR that compiles and ends in no
// operator byte split back the same way.
func FuzzSplitPathArg(f *testing.F) {
	for _, s := range []string{"a.b=running", "a==`1`", "length(x) >= `2`=true", "a=`\"x=y\"`", "'k=v'=1", "a!=b", "a", "x=", "=x", `a="b=c"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		expr, value, has := SplitPathArg(arg)
		if !has {
			if expr != arg || value != "" {
				t.Fatalf("SplitPathArg(%q) = %q, %q without a value", arg, expr, value)
			}
			return
		}
		if expr+"="+value != arg {
			t.Fatalf("SplitPathArg(%q) = %q = %q: not the argument", arg, expr, value)
		}
		if strings.Contains(value, "=") || expr == "" || strings.ContainsAny(expr[len(expr)-1:], "=!<>") {
			return
		}
		if _, err := compileJMESPath(expr); err != nil {
			return
		}
		e2, v2, has2 := SplitPathArg(expr + "=" + value)
		if !has2 || e2 != expr || v2 != value {
			t.Fatalf("%q=%q split as %q, %q, %v", expr, value, e2, v2, has2)
		}
	})
}

// FuzzParseExpected: a VALUE that is JSON is that JSON value; anything else
// is the trimmed string; a backquoted VALUE is read the same way between its
// backquotes. Never a panic.
func FuzzParseExpected(f *testing.F) {
	for _, s := range []string{"true", "3", "1.5", `"x"`, "null", "[1]", `{"a":1}`, " running ", "`1`", "1e999", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ParseExpected(s)
		text := s
		if t := strings.TrimSpace(s); len(t) >= 2 && t[0] == '`' && t[len(t)-1] == '`' {
			text = t[1 : len(t)-1] // a JMESPath literal: what is between the backquotes
		}
		var want any
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			want = strings.TrimSpace(text)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseExpected(%q) = %#v, want %#v", s, got, want)
		}
	})
}

// FuzzNewQuery: an expression compiles or is refused; a compiled one
// applies to a few documents without panicking, and its result is JSON.
func FuzzNewQuery(f *testing.F) {
	for _, s := range []string{"a.b", "Reservations[].Instances[].State.Name", "length(@)", "[::2]", "[::0]", "a || b", "{x: a}", "`1`", "sort_by(@, &a)", "foo[?a > `1`]"} {
		f.Add(s)
	}
	docs := []any{nil, map[string]any{"a": map[string]any{"b": 1.0}}, []any{1.0, "x", true}, "s"}
	f.Fuzz(func(t *testing.T, expr string) {
		q, err := NewQuery(expr)
		if err != nil {
			return
		}
		for _, d := range docs {
			b, err := q.Apply(d)
			if err != nil {
				continue
			}
			if !json.Valid(b) {
				t.Fatalf("%q on %v gave %q, not JSON", expr, d, b)
			}
		}
	})
}
