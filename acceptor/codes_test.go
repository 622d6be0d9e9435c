package acceptor

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // String() of the result
		in1  []int  // contained
		out  []int  // not contained
	}{
		{"0", "0", []int{0}, []int{1, -1, 255}},
		{"1,3", "1,3", []int{1, 3}, []int{0, 2, 4}},
		{"10-20", "10-20", []int{10, 15, 20}, []int{9, 21}},
		{"1,3,10-20", "1,3,10-20", []int{1, 3, 10, 20}, []int{2, 9, 21}},
		{" 1 , 3 ,\t10 - 20 ", "1,3,10-20", []int{1, 3, 12}, []int{2}},
		{"255", "255", []int{255}, []int{254, 256}},
		{"0-255", "0-255", []int{0, 128, 255}, []int{-1, 256}},
		{"7-7", "7", []int{7}, []int{6, 8}},
		{"007", "7", []int{7}, []int{0}},
		{"3,1", "3,1", []int{1, 3}, []int{2}},
		{"1,1", "1,1", []int{1}, []int{0}},
	}
	for _, tt := range tests {
		c, err := ParseExitCodes(tt.in)
		if err != nil {
			t.Errorf("ParseExitCodes(%q): %v", tt.in, err)
			continue
		}
		if got := c.String(); got != tt.want {
			t.Errorf("ParseExitCodes(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		for _, n := range tt.in1 {
			if !c.Contains(n) {
				t.Errorf("ParseExitCodes(%q).Contains(%d) = false, want true", tt.in, n)
			}
		}
		for _, n := range tt.out {
			if c.Contains(n) {
				t.Errorf("ParseExitCodes(%q).Contains(%d) = true, want false", tt.in, n)
			}
		}
	}
}

func TestParseExitCodesErrors(t *testing.T) {
	t.Parallel()
	const accepted = "; want codes like 0, 1,3 or 10-20 (0–255)"
	tests := []struct {
		in, want string
	}{
		{"", "no codes given"},
		{"   ", "no codes given"},
		{"1,", `empty element in "1,"`},
		{",1", `empty element in ",1"`},
		{"1,,2", `empty element in "1,,2"`},
		{"20-10", "range 20-10 is reversed (write 10-20)"},
		{"256", "256 is out of range"},
		{"0-256", "256 is out of range"},
		{"99999999999999999999", "99999999999999999999 is out of range"},
		{"-1", `"-1" is not a code or a range`},
		{"1-", `"1-" is not a code or a range`},
		{"-", `"-" is not a code or a range`},
		{"1-2-3", `"2-3" is not a number`},
		{"x", `"x" is not a number`},
		{"+1", `"+1" is not a number`},
		{"0x1", `"0x1" is not a number`},
		{"1.5", `"1.5" is not a number`},
		{"1 2", `"1 2" is not a number`},
		{"٣", `"٣" is not a number`}, // Arabic-Indic three
		{"1;2", `"1;2" is not a number`},
	}
	for _, tt := range tests {
		c, err := ParseExitCodes(tt.in)
		if err == nil {
			t.Errorf("ParseExitCodes(%q) = %v, want an error", tt.in, c)
			continue
		}
		if got, want := err.Error(), tt.want+accepted; got != want {
			t.Errorf("ParseExitCodes(%q) error:\n got %s\nwant %s", tt.in, got, want)
		}
	}
}

func TestParseStatusCodes(t *testing.T) {
	t.Parallel()
	c, err := ParseStatusCodes("200, 404,500-599")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.String(), "200,404,500-599"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for n, want := range map[int]bool{200: true, 201: false, 404: true, 499: false, 500: true, 599: true, 600: false} {
		if got := c.Contains(n); got != want {
			t.Errorf("Contains(%d) = %v, want %v", n, got, want)
		}
	}

	for _, bad := range []string{"99", "600", "0", "100-600", "", "2xx", "504-500"} {
		_, err := ParseStatusCodes(bad)
		if err == nil {
			t.Errorf("ParseStatusCodes(%q): no error", bad)
			continue
		}
		if !strings.HasSuffix(err.Error(), "; want statuses like 200, 404,410 or 500-599 (100–599)") {
			t.Errorf("ParseStatusCodes(%q) error %q does not say what is accepted", bad, err)
		}
	}
	for _, ok := range []string{"100", "599", "100-599"} {
		if _, err := ParseStatusCodes(ok); err != nil {
			t.Errorf("ParseStatusCodes(%q): %v", ok, err)
		}
	}
}

func TestCodesZeroAndLiteral(t *testing.T) {
	t.Parallel()
	var none Codes
	if none.Contains(0) || none.String() != "" {
		t.Errorf("nil Codes: Contains(0) = %v, String() = %q; want false, \"\"", none.Contains(0), none.String())
	}
	reversed := Codes{{5, 3}}
	if reversed.Contains(4) || reversed.containsRange(0, 10) {
		t.Error("a reversed literal range contains codes")
	}
	c := Codes{{404, 404}, {500, 503}}
	if c.String() != "404,500-503" || !c.Contains(404) || !c.Contains(501) || c.Contains(504) {
		t.Errorf("literal Codes %v misbehave", c)
	}
	for _, tt := range []struct {
		lo, hi int
		want   bool
	}{{200, 299, false}, {400, 404, true}, {405, 499, false}, {503, 600, true}, {0, 1000, true}} {
		if got := c.containsRange(tt.lo, tt.hi); got != tt.want {
			t.Errorf("containsRange(%d, %d) = %v, want %v", tt.lo, tt.hi, got, tt.want)
		}
	}
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
