package jmes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jmespath/go-jmespath"
)

// TestSpecReadings: where go-jmespath reads an expression otherwise than
// the JMESPath specification (and python jmespath, the AWS CLI's), the
// expression is read as the specification reads it.
func TestSpecReadings(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"e":[],"b":[1,2,3],"s":"abc","n":null,"l":[[],[2,4]],"o":{"x":[]},` +
		`"conditions":[{"type":"Ready","status":"True"},{"type":"Synced","status":"False"}],"p":"C:\\\\"}`)
	for _, tt := range []struct {
		expr, want, err, warning string
	}{
		// avg of an empty array is null, wherever it is used.
		{expr: "avg(e)", want: "null"},
		{expr: "avg(b)", want: "2"},
		{expr: "avg(e) == null", want: "true"},
		{expr: "type(avg(e))", want: `"null"`},
		{expr: "to_string(avg(e))", want: `"null"`},
		{expr: "avg(e) || 'none'", want: `"none"`},
		{expr: "{x: avg(e), y: avg(b)}", want: `{"x":null,"y":2}`},
		{expr: "l[*].avg(@)", want: `[3]`},
		{expr: "o.avg(x)", want: "null"},
		{expr: "avg([avg(e), `1`][?@ != null])", want: "1"},
		{expr: "avg(l[?avg(@) != null][])", want: "3"},
		{expr: "sort_by(l, &avg(@))", err: "invalid type"}, // null does not sort with numbers, as in python jmespath
		{expr: "avg(s)", err: "Invalid type"},
		{expr: "avg(n)", err: "Invalid type"},
		{expr: "avg(o)", err: "Invalid type"},
		{expr: "{avg: b}.avg", want: "[1,2,3]"},
		{expr: "'avg(e)'", want: `"avg(e)"`},
		// A raw string: a backslash escapes any character; only \' stands for '.
		{expr: `'\\'`, want: `"\\\\"`},
		{expr: `'C:\\'`, want: `"C:\\\\"`},
		{expr: `p == 'C:\\'`, want: "true"},
		{expr: `'a\'b'`, want: `"a'b"`},
		{expr: `'\\\''`, want: `"\\\\'"`},
		{expr: `'\z'`, want: `"\\z"`},
		{expr: "'`'", want: "\"`\""},
		{expr: "'\\`'", want: "\"\\\\`\""},
		{expr: `'\"'`, want: `"\\\""`},
		{expr: `'\'`, err: "Unclosed delimiter"},
		// A slice takes at most two colons.
		{expr: "[:::]", err: "a slice takes at most two colons"},
		{expr: "b[1:2:1:]", err: "a slice takes at most two colons"},
		{expr: "b[::]", want: "[1,2,3]"},
		{expr: "{a: b[::2], c: s}", want: `{"a":[1,3],"c":"abc"}`},
		{expr: "b[?@ == `1`] | [:1]", want: "[1]"},
		// A bare word in backquotes is the string, with a warning.
		{expr: "conditions[?type==`Ready`].status", want: `["True"]`,
			warning: "the JMESPath literal `Ready` is not JSON: it is read as the string \"Ready\", a deprecated syntax (python jmespath's too); write `\"Ready\"`"},
		{expr: "`  foo bar`", want: `"foo bar"`, warning: "write `\"foo bar\"`"},
		{expr: "conditions[?type==`\"Ready\"`].status", want: `["True"]`},
		{expr: "`a\"b`", err: "invalid character"},
	} {
		q, err := NewQuery(tt.expr)
		var out []byte
		if err == nil {
			out, err = q.ApplyAttempt(stdoutOf(doc))
		}
		got := strings.TrimSuffix(string(out), "\n")
		switch {
		case tt.err != "" && err == nil && got != tt.want:
			t.Errorf("%s: got %s, want an error …%s…", tt.expr, got, tt.err)
		case tt.err != "" && err != nil && !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tt.err)):
			t.Errorf("%s: got error %v, want …%s…", tt.expr, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.expr, err)
		case tt.err == "" && got != tt.want:
			t.Errorf("%s: got %s, want %s", tt.expr, got, tt.want)
		}
		if q == nil {
			continue
		}
		w := strings.Join(q.Warnings(), "\n")
		if (tt.warning == "") != (w == "") || !strings.Contains(w, tt.warning) {
			t.Errorf("%s: warnings %q, want …%s…", tt.expr, w, tt.warning)
		}
	}
}

// FuzzFixSource: the rewriting never panics; it leaves alone an expression
// with nothing to correct (no avg, no backslash, no backquote); and what it
// gives the library parses whenever the library parses the original (the
// avg rewrite keeps the syntax valid). Seeds: the compliance suite's
// expressions.
func FuzzFixSource(f *testing.F) {
	files, _ := filepath.Glob("testdata/jmespath-compliance/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var suites []complianceSuite
		if err := json.Unmarshal(data, &suites); err != nil {
			f.Fatal(err)
		}
		for _, s := range suites {
			for _, c := range s.Cases {
				f.Add(c.Expression)
			}
		}
	}
	f.Add("avg(a) || avg(b[?avg(@) > `1`])")
	f.Fuzz(func(t *testing.T, src string) {
		fixed, err := fixSource(src)
		if err != nil {
			return
		}
		if !strings.Contains(src, "avg") && !strings.ContainsAny(src, "\\`") && (fixed.lexical != src || fixed.program != src) {
			t.Fatalf("%q rewritten as %q, %q", src, fixed.lexical, fixed.program)
		}
		parses := func(s string) (ok bool) {
			defer func() {
				if recover() != nil {
					ok = false
				}
			}()
			_, err := jmespath.NewParser().Parse(s)
			return err == nil
		}
		if parses(src) && (!parses(fixed.lexical) || !parses(fixed.program)) {
			t.Fatalf("%q parses, its rewriting %q / %q does not", src, fixed.lexical, fixed.program)
		}
	})
}
