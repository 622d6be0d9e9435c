package jmes

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The tests' view of a pathSet: whether it keeps everything, and the set
// written compactly, as the analysis' tests compare it.

// Everything reports whether the whole document is needed.
func (p *pathSet) Everything() bool { return p.root != nil && p.root.full }

// String writes the set compactly: * for everything, {key:…} for the keys
// of an object ({**:…} for every key), […] for array elements, _ for the
// type only; "" for nothing. The paths of
// Reservations[].Instances[].State.Name are
// {Reservations:[{Instances:[{State:{Name:*}}]}]}.
func (p *pathSet) String() string {
	var b strings.Builder
	writeNeed(&b, p.root)
	return b.String()
}

func writeNeed(b *strings.Builder, n *need) {
	switch {
	case n == nil:
		return
	case n.full:
		b.WriteByte('*')
		return
	case n.empty():
		b.WriteByte('_')
		return
	}
	if len(n.fields) > 0 || n.all != nil {
		keys := slices.Sorted(maps.Keys(n.fields))
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if isPlainKey(k) {
				b.WriteString(k)
			} else {
				b.WriteString(strconv.Quote(k))
			}
			b.WriteByte(':')
			writeNeed(b, n.fields[k])
		}
		if n.all != nil {
			if len(keys) > 0 {
				b.WriteByte(',')
			}
			b.WriteString("**:")
			writeNeed(b, n.all)
		}
		b.WriteByte('}')
	}
	if n.elems != nil {
		b.WriteByte('[')
		writeNeed(b, n.elems)
		b.WriteByte(']')
	}
	for _, i := range slices.Sorted(maps.Keys(n.at)) {
		b.WriteByte('[')
		b.WriteString(strconv.FormatInt(i, 10))
		b.WriteByte(':')
		writeNeed(b, n.at[i])
		b.WriteByte(']')
	}
}

func isPlainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
