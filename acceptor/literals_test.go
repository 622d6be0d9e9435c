package acceptor

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestRequiredLiterals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ re, want string }{
		{`(alpha|beta)[0-9]+-never-7`, `[-never-7]`},
		{`hello`, `[hello]`},
		{`hel+o`, `[he]`},
		{`(alpha|beta)x`, `[alphax betax]`},
		{`error: (timeout|refused)`, `[error: timeout error: refused]`},
		{`a.*bcd.*e`, `[bcd]`},
		{`(?i)hello`, `[]`},
		{`x*`, `[]`},
		{`^$`, `[]`},
		{`\d+`, `[]`},
		{`(ab)+c`, `[ab]`},
		{`(foo)?bar`, `[bar]`},
		{`[ab]c`, `[ac bc]`},
		{`ThrottlingException|SlowDown`, `[ThrottlingException SlowDown]`},
		{`a|b*`, `[]`},
		{`x{2,}yz`, `[yz]`},
		{`é+tude`, `[tude]`},
	} {
		got := fmt.Sprint(requiredLiterals(regexp.MustCompile(c.re)))
		if got != c.want {
			t.Errorf("requiredLiterals(%q) = %s, want %s", c.re, got, c.want)
		}
	}
}

// The scanner agrees with bytes.Contains on random literals and texts over
// a small alphabet (so that literals overlap and share prefixes and
// suffixes).
func TestLiteralScannerAgreesWithContains(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc-\n"[r.IntN(5)]
		}
		return string(b)
	}
	for trial := 0; trial < 500; trial++ {
		lits := make([]string, 1+r.IntN(12))
		for i := range lits {
			lits[i] = word(1 + r.IntN(5))
		}
		text := []byte(word(r.IntN(200)))
		got := newLiteralScanner(lits).scan(text)
		for i, l := range lits {
			if want := bytes.Contains(text, []byte(l)); got[i] != want {
				t.Fatalf("literals %q in %q: %q found = %v, want %v", lits, text, l, got[i], want)
			}
		}
	}
}

// The prefilter never hides a match: a chain of output acceptors decides
// exactly as running every regexp in order does.
func TestOutputPrefilterKeepsEveryMatch(t *testing.T) {
	t.Parallel()
	patterns := []string{`(alpha|beta)[0-9]+-x`, `ab+c`, `a.c`, `(?i)ABC`, `c-a`, `^b`, `a$`,
		`[ab]c-`, `(ab|ba)(cc|a-)`, `b{2,}`, `x`, `-+\n`, `(a|b)(a|c)(b|-)`}
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 2000; trial++ {
		var acc []Acceptor
		var res []*regexp.Regexp
		for _, i := range r.Perm(len(patterns))[:1+r.IntN(len(patterns))] {
			re := regexp.MustCompile(patterns[i])
			res = append(res, re)
			acc = append(acc, Acceptor{State: StateSuccess, Name: patterns[i], Matcher: OutputMatcher(re)})
		}
		b := make([]byte, r.IntN(60))
		for i := range b {
			b[i] = "abc-\n0123x"[r.IntN(10)]
		}
		half := r.IntN(len(b) + 1)
		a := &Attempt{StdoutTail: b[:half], StderrTail: b[half:]}
		want := -1
		for i, re := range res {
			if re.Match(a.StdoutTail) || re.Match(a.StderrTail) {
				want = i
				break
			}
		}
		d := (&Chain{Acceptors: acc}).Evaluate(a)
		got := -1
		if d.Source == FromAcceptor {
			got = d.Acceptor
		}
		if got != want {
			t.Fatalf("stdout %q stderr %q, patterns %v: acceptor %d matched, want %d", a.StdoutTail, a.StderrTail, acc, got, want)
		}
		// Outside a chain too.
		for i, re := range res {
			if got, w := acc[i].Matcher.Match(&Env{Attempt: a}).Matched, re.Match(a.StdoutTail) || re.Match(a.StderrTail); got != w {
				t.Fatalf("%s alone on %q/%q: %v, want %v", re, a.StdoutTail, a.StderrTail, got, w)
			}
		}
	}
}

// outputBench is 1 MiB of log-like output and 100 patterns like the issue's,
// none of which matches (the common case: a retry pattern that is not
// there).
func outputBench() ([]byte, []Acceptor) {
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "2026-11-23T04:%02d:%02d level=info msg=\"request %d done\" alpha%d beta-%d status=200 bytes=%d\n", i/60%60, i%60, i, i, i*7, i*13)
	}
	acc := make([]Acceptor, 100)
	for i := range acc {
		p := fmt.Sprintf(`(alpha|beta)[0-9]+-never-%d`, i)
		acc[i] = Acceptor{State: StateRetry, Name: p, Matcher: OutputMatcher(regexp.MustCompile(p))}
	}
	return b.Bytes()[:1<<20], acc
}

// BenchmarkOutputAcceptors: 100 output acceptors over a 1 MiB stdout window
// (and an empty stderr), one chain evaluation per op.
func BenchmarkOutputAcceptors(b *testing.B) {
	window, acc := outputBench()
	c := &Chain{Acceptors: acc}
	a := &Attempt{StdoutTail: window}
	b.SetBytes(int64(len(window)))
	for b.Loop() {
		if d := c.Evaluate(a); d.Source != FromFallback {
			b.Fatal("matched")
		}
	}
}

// BenchmarkOutputAcceptorsNoPrefilter is the same work with the regexps
// alone (what every attempt cost before the prefilter), for comparison.
func BenchmarkOutputAcceptorsNoPrefilter(b *testing.B) {
	window, acc := outputBench()
	b.SetBytes(int64(len(window)))
	for b.Loop() {
		for _, x := range acc {
			if x.Matcher.(*outputMatcher).re.Match(window) {
				b.Fatal("matched")
			}
		}
	}
}

// TestOutputBenchmarkData: the benchmark's patterns have the literal the
// prefilter needs, and its window does not hold it.
func TestOutputBenchmarkData(t *testing.T) {
	t.Parallel()
	window, acc := outputBench()
	for _, a := range acc {
		m := a.Matcher.(*outputMatcher)
		if len(m.lits) != 1 || !strings.HasPrefix(m.lits[0], "-never-") {
			t.Fatalf("%s: literals %q", a.Name, m.lits)
		}
	}
	if bytes.Contains(window, []byte("never")) {
		t.Fatal("the window holds the literal")
	}
}

// FuzzOutputPrefilter: for any pattern and text, an output acceptor with the
// literal prefilter (in a chain and alone) matches exactly when the regexp
// does, and the scanner agrees with bytes.Contains on the literals.
func FuzzOutputPrefilter(f *testing.F) {
	for _, s := range [][2]string{
		{`(alpha|beta)[0-9]+-never-7`, "alpha12-never-7"},
		{`[ab]c|x{2,}yz`, "bc xxyz"},
		{`(?i)Throttl(ing|ed)`, "THROTTLED"},
		{`^a.*b$`, "a\nb"},
		{`\x00\xff`, "\x00\xff"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		a := &Attempt{StdoutTail: []byte(text)}
		// The matcher looks at stdout and at stderr, here empty: `^$`
		// matches the empty stderr whatever stdout holds.
		want := re.MatchString(text) || re.MatchString("")
		m := OutputMatcher(re)
		if got := m.Match(&Env{Attempt: a}).Matched; got != want {
			t.Fatalf("%q on %q alone: %v, want %v (literals %q)", pattern, text, got, want, requiredLiterals(re))
		}
		d := (&Chain{Acceptors: []Acceptor{{State: StateSuccess, Matcher: m}}, Fallback: func(*Attempt) (Directive, string) { return Fail, "" }}).Evaluate(a)
		if got := d.Source == FromAcceptor && d.Acceptor == 0; got != want {
			t.Fatalf("%q on %q in a chain: %v, want %v (literals %q)", pattern, text, got, want, requiredLiterals(re))
		}
		if lits := requiredLiterals(re); len(lits) > 0 {
			if sc := newLiteralScanner(lits); sc != nil {
				for i, found := range sc.scan([]byte(text)) {
					if found != strings.Contains(text, lits[i]) {
						t.Fatalf("literal %q in %q: scanner %v", lits[i], text, found)
					}
				}
			}
		}
	})
}
