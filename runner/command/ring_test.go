package command

import (
	"bytes"
	"testing"
)

func TestRing(t *testing.T) {
	var r ring
	var all []byte
	for i, k := range []int{3, 1, 5, 9, 2, 20, 1, 7, 4} {
		p := bytes.Repeat([]byte{byte('a' + i)}, k)
		all = append(all, p...)
		r.write(p, 8)
		want := all[max(0, len(all)-8):]
		if got := r.bytes(); !bytes.Equal(got, want) {
			t.Fatalf("after %d writes: %q, want %q", i+1, got, want)
		}
	}
	var none ring
	none.write([]byte("abc"), 0)
	if none.bytes() != nil {
		t.Errorf("a zero window kept bytes")
	}
}
