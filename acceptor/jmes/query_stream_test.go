package jmes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

// sameAsApply checks that WriteAttempt writes, for q on doc, what
// ApplyAttempt (ApplyAttemptText with text) returns, byte for byte, and
// fails exactly when it does, with the same message; it reports whether q
// was streamed.
func sameAsApply(t *testing.T, q *Query, doc []byte, text bool) {
	t.Helper()
	apply := q.ApplyAttempt
	if text {
		apply = q.ApplyAttemptText
	}
	want, werr := apply(stdoutOf(doc))
	var got bytes.Buffer
	gerr := q.WriteAttempt(stdoutOf(doc), text, &got)
	switch {
	case werr != nil || gerr != nil:
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Fatalf("%q (text %t, chunks of %d) on %s:\n got error %v\nwant error %v", q.expr.src, text, q.chunk, doc, gerr, werr)
		}
	case !bytes.Equal(got.Bytes(), want):
		t.Fatalf("%q (text %t, chunks of %d) on %s:\n got %q\nwant %q", q.expr.src, text, q.chunk, doc, got.Bytes(), want)
	}
}

// TestWriteAttemptIsApplyAttempt: a --query written while the document is
// decoded is byte for byte what ApplyAttempt writes, errors included, for
// every expression of the JMESPath compliance suite on its document, and
// for the waiter models' and the hand-written expressions on generated
// documents, with the streamed arrays cut in chunks of 1, 2, 3 and 512.
func TestWriteAttemptIsApplyAttempt(t *testing.T) {
	t.Parallel()
	streamed, runs := 0, 0
	check := func(src string, doc []byte) {
		for _, chunk := range []int{1, 2, 3, 512} {
			q, err := NewQuery(src)
			if err != nil {
				return
			}
			q.chunk = chunk
			if chunk == 1 && q.streamPlan() != nil {
				streamed++
			}
			for _, text := range []bool{false, true} {
				runs++
				sameAsApply(t, q, doc, text)
			}
		}
	}
	for _, f := range complianceFiles(t) {
		for _, s := range f.suites {
			for _, c := range s.Cases {
				if c.Bench == "" && !orderFree(c.Expression) {
					check(c.Expression, s.Given)
				}
			}
		}
	}
	exprs := append(modelExpressions(t), handExpressions...)
	exprs = append(exprs, "a.b[*].c", "a.b[]", "a[].b[?c].d", "[].x", "@[*]", "a[*][0].b", "a[].avg(b)",
		"a[].b[].c[]", "a[*].b[*].c", "a[?b].c[]", "a[].b.c", "a[].to_string(@)", "a[].[b, c]", "a[].{x: b}",
		"a[].sum(b)", "a[].abs(b)", "[*].a", "[]")
	docs := 60
	if testing.Short() {
		docs = 15
	}
	for i, src := range exprs {
		if orderFree(src) {
			continue
		}
		g := newDocGen(uint64(i), []string{src})
		for n := range docs {
			var doc any = g.object(4)
			if n%10 == 0 {
				doc = g.value(4)
			}
			raw, _ := json.Marshal(doc)
			check(src, raw)
		}
	}
	if streamed == 0 {
		t.Fatal("nothing was streamed")
	}
	t.Logf("%d runs, %d of them of expressions that stream", runs, streamed*8)
}

// TestWriteAttemptEdgeCases: what ApplyAttempt writes for the cases where
// streaming could go wrong: a repeated key on the way to the array or at
// it (the last value counts), the value at the path of another type,
// missing, empty; nulls dropped; an element that fails the expression or
// gives what JSON cannot hold, before or after others; a document that is
// not JSON after the array; integers beyond 2^53; blank stdout.
func TestWriteAttemptEdgeCases(t *testing.T) {
	t.Parallel()
	big := `{"a":[{"b":12345678901234567890},{"b":-9007199254740993},{"b":1e30},{"b":2}]}`
	tests := []struct {
		expr, doc string
		json      string // the expected output, or "error: …" (a part of the message)
	}{
		{"a[].b", `{"a":[{"b":1}],"a":{"b":2}}`, "null\n"},
		{"a[].b", `{"a":{"b":2},"a":[{"b":1},{"b":3}]}`, "[1,3]\n"},
		{"a[].b", `{"a":[{"b":1},{"b":2},{"b":3}],"a":[{"b":4}]}`, "[4]\n"},
		{"x.a[].b", `{"x":{"a":[{"b":1},{"b":2},{"b":3}]},"x":0}`, "null\n"},
		{"x.a[].b", `{"x":{"a":[{"b":1},{"b":2},{"b":3}]},"x":{"y":1}}`, "null\n"},
		{"x.a[].b", `{"x":{"a":[{"b":1},{"b":2},{"b":3}]},"x":{"a":[{"b":5}]}}`, "[5]\n"},
		{"x.a[].b", `{"x":{"a":[{"b":1},{"b":2},{"b":3}],"a":{"b":7}}}`, "null\n"},
		{"a[].b", `{"a":"s"}`, "null\n"},
		{"a[].b", `{"x":1}`, "null\n"},
		{"a[].b", `{"a":[]}`, "[]\n"},
		{"a[].b", `{"a":[1,2,3,"x",null,{}]}`, "[]\n"},
		{"a[].b", `[]`, "null\n"},
		{"a[].b", ``, "null\n"},
		{"a[].b", "  \n", "null\n"},
		{"[].b", `[{"b":1},[{"b":2}],3,{"b":null},{"b":[]},{"b":{}},{"b":"é\u2028<>&"}]`, "[1,2,[],{},\"é\\u2028<>&\"]\n"},
		{"a[?b > `1`].c", `{"a":[{"b":1,"c":"x"},{"b":2,"c":"y"},{"b":3},{"b":4,"c":null},{"b":5,"c":"z"}]}`, "[\"y\",\"z\"]\n"},
		{"a[].abs(b)", `{"a":[{"b":-1},{"b":-2},{"b":"x"},{"b":4}]}`, "error: evaluating \"a[].abs(b)\""},
		{"a[].abs(b)", `{"a":[{"b":"x"},{"b":-2},{"b":-3},{"b":4}]}`, "error: evaluating \"a[].abs(b)\""},
		{"a[].sum(b)", `{"a":[{"b":[1]},{"b":[1e308,1e308]},{"b":[2]},{"b":[-1e308,-1e308]},{"b":[3]}]}`, "error: the result holds -Inf, which JSON cannot represent"},
		{"a[].b", `{"a":[{"b":1},{"b":2},{"b":3}]} x`, "error: not JSON"},
		{"a[].b", `{"a":[{"b":1},{"b":2},{"b":3}],}`, "error: not JSON"},
		{"a[].b", `{"a":[{"b":1},{"b":2},{"b":3},`, "error: not JSON"},
		{"a[].b", big, "[12345678901234567890,-9007199254740993,1e+30,2]\n"},
		{"a[?b > `0`].b", big, "[12345678901234567000,1e+30,2]\n"},
		{"a[].to_string(b)", big, "[\"12345678901234567000\",\"-9007199254740992\",\"1e+30\",\"2\"]\n"},
		{"a[].[b]", `{"a":[{"b":1},{"c":2}]}`, "[[1],[null]]\n"},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 2, 512} {
			q, err := NewQuery(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			q.chunk = chunk
			var got bytes.Buffer
			err = q.WriteAttempt(stdoutOf([]byte(tt.doc)), false, &got)
			if want, ok := strings.CutPrefix(tt.json, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%q on %s (chunks of %d): %q, %v; want an error saying %q", tt.expr, tt.doc, chunk, got.Bytes(), err, want)
				}
				if strings.Contains(tt.json, "not JSON") && !errors.Is(err, acceptor.ErrNotJSON) {
					t.Errorf("%q on %s: %v does not wrap acceptor.ErrNotJSON", tt.expr, tt.doc, err)
				}
			} else if err != nil || got.String() != tt.json {
				t.Errorf("%q on %s (chunks of %d): %q, %v; want %q", tt.expr, tt.doc, chunk, got.Bytes(), err, tt.json)
			}
			sameAsApply(t, q, []byte(tt.doc), false)
			sameAsApply(t, q, []byte(tt.doc), true)
		}
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// firstWrite is a Sink that records how much of the document had been read
// when the result was first written to it, and its largest write.
type firstWrite struct {
	bytes.Buffer
	src     *countingReader
	at      int // -1: not written yet
	largest int
}

func (f *firstWrite) Write(p []byte) (int, error) {
	if f.at < 0 {
		f.at = f.src.n
	}
	f.largest = max(f.largest, len(p))
	return f.Buffer.Write(p)
}

// TestWriteAttemptStreams checks what streaming is for: on a
// describe-instances-like document, the projection of every instance's ID
// is written while the document is still being read (the first IDs before
// a tenth of it), in writes of a chunk's IDs (here 64 reservations of 2
// instances, IDs of 20 bytes), never the whole list; and the text form
// writes the same IDs a line each.
func TestWriteAttemptStreams(t *testing.T) {
	t.Parallel()
	var b, wantJSON, wantText strings.Builder
	b.WriteString(`{"Reservations":[`)
	wantJSON.WriteString("[")
	const reservations = 3000
	for r := range reservations {
		if r > 0 {
			b.WriteString(",")
			wantJSON.WriteString(",")
		}
		fmt.Fprintf(&b, `{"ReservationId":"r-%d","Instances":[{"InstanceId":"i-%015da","State":{"Name":"running"}},{"InstanceId":"i-%015db","State":{"Name":"pending"}}]}`, r, r, r)
		fmt.Fprintf(&wantJSON, `"i-%015da","i-%015db"`, r, r)
		fmt.Fprintf(&wantText, "i-%015da\ni-%015db\n", r, r)
	}
	b.WriteString(`]}`)
	wantJSON.WriteString("]\n")
	doc := b.String()
	q, err := NewQuery("Reservations[].Instances[].InstanceId")
	if err != nil {
		t.Fatal(err)
	}
	q.chunk = 64
	for _, text := range []bool{false, true} {
		src := &countingReader{r: strings.NewReader(doc)}
		a := &acceptor.Attempt{Number: 1, Stdout: func() (io.ReadCloser, error) { return io.NopCloser(src), nil }}
		sink := &firstWrite{src: src, at: -1}
		if err := q.WriteAttempt(a, text, sink); err != nil {
			t.Fatal(err)
		}
		if sink.at < 0 || sink.at > len(doc)/10 {
			t.Errorf("text %t: first write after %d bytes of %d read", text, sink.at, len(doc))
		}
		if sink.largest > 64*2*21+1 {
			t.Errorf("text %t: a write of %d bytes: more than a chunk's results", text, sink.largest)
		}
		want := wantJSON.String()
		if text {
			want = wantText.String()
		}
		if sink.String() != want {
			t.Errorf("text %t: wrote %d bytes, not the %d expected", text, sink.Len(), len(want))
		}
		sameAsApply(t, q, []byte(doc), text)
	}
}
