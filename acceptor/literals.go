package acceptor

import (
	"regexp"
	"regexp/syntax"
)

// maxAlternatives bounds the literals of one requirement: an alternation of
// more literals than this is not worth a prefilter.
const maxAlternatives = 32

// requiredLiterals returns literals at least one of which appears in every
// match of re, or nil when there is no such set (a pattern that can match
// without any fixed text, or case-insensitive text). For
// `(alpha|beta)[0-9]+-never-7` it is ["-never-7"]; for `(alpha|beta)x` it
// is ["alphax", "betax"] or ["alpha", "beta"] (the set whose shortest
// literal is longest wins).
func requiredLiterals(re *regexp.Regexp) []string {
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	return required(t.Simplify())
}

// better reports whether the requirement a filters better than b: it has
// one, and its shortest literal is longer (fewer literals on a tie).
func better(a, b []string) bool {
	if a == nil {
		return false
	}
	if b == nil {
		return true
	}
	if sa, sb := shortest(a), shortest(b); sa != sb {
		return sa > sb
	}
	return len(a) < len(b)
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

func required(t *syntax.Regexp) []string {
	switch t.Op {
	case syntax.OpLiteral:
		if t.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(t.Rune)}
	case syntax.OpCapture:
		return required(t.Sub[0])
	case syntax.OpPlus:
		return required(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return required(t.Sub[0])
		}
		return nil
	case syntax.OpAlternate:
		var all []string
		for _, s := range t.Sub {
			r := required(s)
			if r == nil || len(all)+len(r) > maxAlternatives {
				return nil
			}
			all = append(all, r...)
		}
		return all
	case syntax.OpConcat:
		return requiredConcat(t.Sub)
	case syntax.OpCharClass:
		// A small class of single characters: [ab] is "a" or "b".
		return smallClass(t)
	}
	return nil
}

// requiredConcat: the best requirement of any part, where runs of adjacent
// exact parts (literals, and alternations of literals, multiplied out) join
// into longer literals.
func requiredConcat(subs []*syntax.Regexp) []string {
	var best, run []string // run: the literals the current run of exact parts spells
	for _, s := range subs {
		if e := exact(s); e != nil {
			if run == nil {
				run = e
			} else if len(run)*len(e) <= maxAlternatives {
				joined := make([]string, 0, len(run)*len(e))
				for _, a := range run {
					for _, b := range e {
						joined = append(joined, a+b)
					}
				}
				run = joined
			} else {
				if better(run, best) {
					best = run
				}
				run = e
			}
			continue
		}
		if better(run, best) {
			best = run
		}
		run = nil
		if r := required(s); better(r, best) {
			best = r
		}
	}
	if better(run, best) {
		best = run
	}
	return best
}

// exact returns the strings that s matches when it matches only a few
// fixed strings (a literal, a capture of one, an alternation of them), or
// nil.
func exact(s *syntax.Regexp) []string {
	switch s.Op {
	case syntax.OpLiteral:
		if s.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(s.Rune)}
	case syntax.OpCapture:
		return exact(s.Sub[0])
	case syntax.OpAlternate:
		var all []string
		for _, a := range s.Sub {
			e := exact(a)
			if e == nil || len(all)+len(e) > maxAlternatives {
				return nil
			}
			all = append(all, e...)
		}
		return all
	case syntax.OpCharClass:
		return smallClass(s)
	}
	return nil
}

// smallClass returns the characters of a class of at most 4, or nil.
func smallClass(s *syntax.Regexp) []string {
	var lits []string
	for i := 0; i+1 < len(s.Rune); i += 2 {
		if s.Rune[i+1]-s.Rune[i] >= 4 {
			return nil
		}
		for r := s.Rune[i]; r <= s.Rune[i+1]; r++ {
			if len(lits) == 4 {
				return nil
			}
			lits = append(lits, string(r))
		}
	}
	return lits
}

// literalScanner finds, in one pass over a window, which of a set of
// literals occur in it: an Aho-Corasick automaton over byte classes (the
// bytes of the literals, each a class, and every other byte class 0). The
// required literals of every output acceptor of a chain go into one
// scanner, so a window is read once whatever the number of patterns.
type literalScanner struct {
	lits    []string
	class   [256]uint8
	classes int
	delta   []int32 // state*classes + class → state
	out     []int32 // state → first literal ending here (-1: none)
	next    []int32 // literal → next literal ending at the same state (via suffixes), -1
	outLink []int32 // state → nearest suffix state with an output (-1)
}

// newLiteralScanner builds the scanner of lits (duplicates allowed: each
// index reports on its own).
func newLiteralScanner(lits []string) *literalScanner {
	s := &literalScanner{lits: lits}
	for _, l := range lits {
		for i := 0; i < len(l); i++ {
			if s.class[l[i]] == 0 {
				if s.classes == 254 {
					return nil
				}
				s.classes++
				s.class[l[i]] = uint8(s.classes)
			}
		}
	}
	s.classes++
	nc := s.classes
	// The trie.
	trie := []int32{} // state*nc + class → child, 0 = none (state 0 is the root)
	grow := func() int32 {
		trie = append(trie, make([]int32, nc)...)
		s.out = append(s.out, -1)
		return int32(len(s.out) - 1)
	}
	grow()
	s.next = make([]int32, len(lits))
	for id, l := range lits {
		st := int32(0)
		for i := 0; i < len(l); i++ {
			c := int32(s.class[l[i]])
			if trie[st*int32(nc)+c] == 0 {
				child := grow()
				trie[st*int32(nc)+c] = child
			}
			st = trie[st*int32(nc)+c]
		}
		s.next[id] = s.out[st]
		s.out[st] = int32(id)
	}
	// Breadth first: failure links, the DFA, output links.
	n := len(s.out)
	s.delta = make([]int32, n*nc)
	s.outLink = make([]int32, n)
	fail := make([]int32, n)
	queue := make([]int32, 0, n)
	s.outLink[0] = -1
	for c := 0; c < nc; c++ {
		if child := trie[c]; child != 0 {
			s.delta[c] = child
			fail[child] = 0
			s.outLink[child] = -1
			queue = append(queue, child)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		for c := 0; c < nc; c++ {
			child := trie[int(st)*nc+c]
			if child == 0 {
				s.delta[int(st)*nc+c] = s.delta[int(fail[st])*nc+c]
				continue
			}
			s.delta[int(st)*nc+c] = child
			f := s.delta[int(fail[st])*nc+c]
			fail[child] = f
			if s.out[f] >= 0 {
				s.outLink[child] = f
			} else {
				s.outLink[child] = s.outLink[f]
			}
			queue = append(queue, child)
		}
	}
	return s
}

// scan returns which literals occur in b (by index).
func (s *literalScanner) scan(b []byte) []bool {
	found := make([]bool, len(s.lits))
	left := len(s.lits)
	nc := int32(s.classes)
	// The hot loop walks a copy of the DFA whose entries are row offsets
	// (state × classes), negative when the state ends a literal not yet
	// recorded: one table load and one sign test per byte.
	dfa := s.rows()
	st := int32(0)
	for i := 0; i < len(b); i++ {
		st = dfa[st+int32(s.class[b[i]])]
		if st >= 0 {
			continue
		}
		st = -st - 1
		state := st / nc
		for o := state; o >= 0; o = s.outLink[o] {
			for id := s.out[o]; id >= 0; id = s.next[id] {
				if !found[id] {
					found[id] = true
					left--
				}
			}
		}
		if left == 0 {
			break
		}
		// Recorded: entering this state again needs no work.
		for j, v := range dfa {
			if v == -st-1 {
				dfa[j] = st
			}
		}
	}
	return found
}

// rows returns the DFA with row offsets, output states negative (-off-1).
func (s *literalScanner) rows() []int32 {
	nc := int32(s.classes)
	dfa := make([]int32, len(s.delta))
	for i, to := range s.delta {
		off := to * nc
		if s.out[to] >= 0 || s.outLink[to] >= 0 {
			off = -off - 1
		}
		dfa[i] = off
	}
	return dfa
}
