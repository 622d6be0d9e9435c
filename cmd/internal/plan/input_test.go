package plan

import "testing"

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1048576": 1 << 20, "512K": 512 << 10, "10M": 10 << 20, "1GiB": 1 << 30, "1.5g": 3 << 29, " 2 mb ": 2 << 20, "3b": 3,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5", "k", "1x", "1..5M", "9223372036854775807K", "1e3"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}
