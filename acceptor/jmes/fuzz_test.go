package jmes

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// FuzzSplitPathArg: EXPR=VALUE splitting is a round trip: EXPR, "=" and
// VALUE put back together give the argument; without a value the argument
// is EXPR. A VALUE with no "=" and an EXPR that compiles and ends in no
// operator byte split back the same way.
func FuzzSplitPathArg(f *testing.F) {
	for _, s := range []string{"a.b=running", "a==`1`", "length(x) >= `2`=true", "a=`\"x=y\"`", "'k=v'=1", "a!=b", "a", "x=", "=x", `a="b=c"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		expr, value, has := splitPathArg(arg)
		if !has {
			if expr != arg || value != "" {
				t.Fatalf("splitPathArg(%q) = %q, %q without a value", arg, expr, value)
			}
			return
		}
		if expr+"="+value != arg {
			t.Fatalf("splitPathArg(%q) = %q = %q: not the argument", arg, expr, value)
		}
		if strings.Contains(value, "=") || expr == "" || strings.ContainsAny(expr[len(expr)-1:], "=!<>") {
			return
		}
		if _, err := compileJMESPath(expr); err != nil {
			return
		}
		e2, v2, has2 := splitPathArg(expr + "=" + value)
		if !has2 || e2 != expr || v2 != value {
			t.Fatalf("%q=%q split as %q, %q, %v", expr, value, e2, v2, has2)
		}
	})
}

// FuzzParseExpected: a VALUE that is JSON is that JSON value (as
// encoding/json decodes it, integers of magnitude 2^53 or more exact);
// anything else is the trimmed string; a backquoted VALUE is read the same
// way between its backquotes. Never a panic.
func FuzzParseExpected(f *testing.F) {
	for _, s := range []string{"true", "3", "1.5", `"x"`, "null", "[1]", `{"a":1}`, " running ", "`1`", "1e999", "", "12345678901234567890", "[-9007199254740993, 1e30]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := parseExpected(s)
		text := s
		if t := strings.TrimSpace(s); len(t) >= 2 && t[0] == '`' && t[len(t)-1] == '`' {
			text = t[1 : len(t)-1] // a JMESPath literal: what is between the backquotes
		}
		want, err := unmarshalExact([]byte(text))
		if err != nil {
			want = strings.TrimSpace(text)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseExpected(%q) = %#v, want %#v", s, got, want)
		}
	})
}

// FuzzNewQuery: an expression compiles or is refused; a compiled one
// applies to a few documents without panicking, its result is JSON, and
// WriteAttempt writes the same bytes as ApplyAttempt, streamed or not.
func FuzzNewQuery(f *testing.F) {
	for _, s := range []string{"a.b", "Reservations[].Instances[].State.Name", "length(@)", "[::2]", "[::0]", "a || b", "{x: a}", "`1`", "sort_by(@, &a)", "foo[?a > `1`]"} {
		f.Add(s)
	}
	docs := []any{nil, map[string]any{"a": map[string]any{"b": 1.0}}, []any{1.0, "x", true}, "s",
		map[string]any{"foo": []any{map[string]any{"a": 2.0}, map[string]any{"a": 0.0, "b": []any{"x", nil}}, nil, []any{1.0}},
			"Reservations": []any{map[string]any{"Instances": []any{map[string]any{"State": map[string]any{"Name": "running"}}}}}}}
	f.Fuzz(func(t *testing.T, expr string) {
		q, err := NewQuery(expr)
		if err != nil {
			return
		}
		q.chunk = 1 // written as it is computed, an element at a time, when it streams
		// A value projection, keys() and values() list an object's
		// members in Go's map order, which changes from run to run.
		mapOrder := strings.Contains(strings.ReplaceAll(expr, "[*]", ""), "*") || strings.Contains(expr, "keys") || strings.Contains(expr, "values")
		for _, d := range docs {
			if !mapOrder {
				raw, _ := json.Marshal(d)
				sameAsApply(t, q, raw, false)
				sameAsApply(t, q, raw, true)
			}
			b, err := q.apply(d)
			if err != nil {
				continue
			}
			if !json.Valid(b) {
				t.Fatalf("%q on %v gave %q, not JSON", expr, d, b)
			}
		}
	})
}

// unmarshalExact is encoding/json's Unmarshal into an any, except that an
// integer of magnitude 2^53 or more is an exactInt of its text: the oracle
// of parseExpected.
func unmarshalExact(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	var conv func(v any) (any, error)
	conv = func(v any) (any, error) {
		switch v := v.(type) {
		case json.Number:
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				return nil, err
			}
			if math.Abs(f) >= 1<<53 && !strings.ContainsAny(string(v), ".eE") {
				return exactInt(v), nil
			}
			return f, nil
		case []any:
			for i := range v {
				var err error
				if v[i], err = conv(v[i]); err != nil {
					return nil, err
				}
			}
		case map[string]any:
			for k := range v {
				e, err := conv(v[k])
				if err != nil {
					return nil, err
				}
				v[k] = e
			}
		}
		return v, nil
	}
	return conv(v)
}
