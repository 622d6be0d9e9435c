package backoff

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"10", 10 * time.Second},
		{"0", 0},
		{"0.5", 500 * time.Millisecond},
		{".25", 250 * time.Millisecond},
		{"5.", 5 * time.Second},
		{"+3", 3 * time.Second},
		{"-0", 0},
		{"0.000000001", 1},
		{"1.5s", 1500 * time.Millisecond},
		{"250ms", 250 * time.Millisecond},
		{"1h2m", time.Hour + 2*time.Minute},
		{"1h2m3.5s", time.Hour + 2*time.Minute + 3500*time.Millisecond},
		{"1us", time.Microsecond},
		{"1µs", time.Microsecond},
		{"7ns", 7},
		{"-0s", 0},
		{" 2m\t", 2 * time.Minute},
		{"2562047h47m16.854775807s", maxDelay},
		{"9223372036.854775807", maxDelay},
	} {
		got, err := ParseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		in, want string // want: the whole error message
	}{
		{"", "empty duration: " + durationHelp},
		{"  ", "empty duration: " + durationHelp},
		{"abc", `"abc" is not a duration: ` + durationHelp},
		{"NaN", `"NaN" is not a duration: ` + durationHelp},
		{"Inf", `"Inf" is not a duration: ` + durationHelp},
		{"+Inf", `"+Inf" is not a duration: ` + durationHelp},
		{"1e3", `"1e3" is not a duration: ` + durationHelp},
		{"0x10", `"0x10" is not a duration: ` + durationHelp},
		{"1_000", `"1_000" is not a duration: ` + durationHelp},
		{"10 s", `"10 s" is not a duration: ` + durationHelp},
		{"1d", `"1d" is not a duration: ` + durationHelp},
		{"1h5", `"1h5" is not a duration: ` + durationHelp},
		{"--1", `"--1" is not a duration: ` + durationHelp},
		{".", `"." is not a duration: ` + durationHelp},
		{"s", `"s" is not a duration: ` + durationHelp},
		{"-1", `"-1" is negative: want 0 or more`},
		{"-0.5", `"-0.5" is negative: want 0 or more`},
		{"-1s", `"-1s" is negative: want 0 or more`},
		{"-3000000h", `"-3000000h" is negative: want 0 or more`},
		{"2562047h47m16.854775808s", `"2562047h47m16.854775808s" is too long: the most is 2562047h47m16s (about 292 years)`},
		{"3000000h", `"3000000h" is too long: the most is 2562047h47m16s (about 292 years)`},
		{"9223372036.854775808", `"9223372036.854775808" is too long: the most is 2562047h47m16s (about 292 years)`},
		{"99999999999999999999", `"99999999999999999999" is too long: the most is 2562047h47m16s (about 292 years)`},
	} {
		got, err := ParseDuration(tt.in)
		if err == nil || err.Error() != tt.want || got != 0 {
			t.Errorf("ParseDuration(%q) = %v, %v; want 0 and error %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParseSchedule(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in       string
		attempts int
		min, max time.Duration
		want     []time.Duration // the first delays
	}{
		{"5s", 0, 5 * time.Second, time.Hour, secs(5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600)},
		{"10 5s", 11, 5 * time.Second, time.Hour, secs(5, 10, 20)},
		{"5s 10m", 0, 5 * time.Second, 10 * time.Minute, secs(5, 10, 20, 40, 80, 160, 320, 600, 600)},
		{"10 5s 10m", 11, 5 * time.Second, 10 * time.Minute, secs(5, 10, 20, 40, 80, 160, 320, 600, 600)},
		{"0 1s", 1, time.Second, time.Hour, secs(1, 2)},
		{"10 5", 11, 5 * time.Second, time.Hour, secs(5, 10)},
		{"10", 0, 10 * time.Second, time.Hour, secs(10, 20)},
		{"  3   1.5   2m ", 4, 1500 * time.Millisecond, 2 * time.Minute, secs(1.5, 3, 6)},
		{"5s 5s", 0, 5 * time.Second, 5 * time.Second, secs(5, 5, 5)},
		{"2h", 0, 2 * time.Hour, 2 * time.Hour, secs(7200, 7200)},
		{"0", 0, 0, time.Hour, secs(0, 0, 0)},
		{"007 1s", 8, time.Second, time.Hour, secs(1)},
	} {
		sc, err := ParseSchedule(tt.in)
		if err != nil {
			t.Errorf("ParseSchedule(%q): %v", tt.in, err)
			continue
		}
		if sc.Attempts != tt.attempts || sc.Min != tt.min || sc.Max != tt.max {
			t.Errorf("ParseSchedule(%q) = {Attempts:%d Min:%v Max:%v}; want {%d %v %v}", tt.in, sc.Attempts, sc.Min, sc.Max, tt.attempts, tt.min, tt.max)
		}
		if got := delays(sc.Backoff, forbidden{t}, len(tt.want)); !slices.Equal(got, tt.want) {
			t.Errorf("ParseSchedule(%q) delays = %v; want %v", tt.in, got, tt.want)
		}
		back, err := ParseSchedule(sc.String())
		if err != nil || back.Attempts != sc.Attempts || back.Min != sc.Min || back.Max != sc.Max {
			t.Errorf("ParseSchedule(%q) = %+v, %v; want the schedule of %q back", sc.String(), back, err, tt.in)
		}
	}
	for _, tt := range []struct {
		in, want string // want: a part of the error message
	}{
		{"", `invalid schedule "": ` + scheduleHelp},
		{"   ", `invalid schedule "   ": ` + scheduleHelp},
		{"1 2s 3s 4s", `invalid schedule "1 2s 3s 4s": ` + scheduleHelp},
		{"5s 1s", `invalid schedule "5s 1s": MIN 5s is longer than MAX 1s`},
		{"3 10m 1m", `invalid schedule "3 10m 1m": MIN 10m0s is longer than MAX 1m0s`},
		{"x 5s 10m", `invalid schedule "x 5s 10m": COUNT "x" is not a whole number of retries; ` + scheduleHelp},
		{"-1 5s 10m", `COUNT "-1" is not a whole number of retries`},
		{"1.5 5s 10m", `COUNT "1.5" is not a whole number of retries`},
		{"5s 10m 1", `COUNT "5s" is not a whole number of retries`},
		{"10 5x", `invalid schedule "10 5x": MIN "5x" is not a duration: ` + durationHelp},
		{"10 5s 10x", `invalid schedule "10 5s 10x": MAX "10x" is not a duration`},
		{"5s -1s", `MAX "-1s" is negative`},
		{"-1 5s", `MIN "-1" is negative`},
		{"99999999999999999999 5s", `invalid schedule "99999999999999999999 5s": COUNT 99999999999999999999 is too large`},
		{"9223372036854775807 5s", `COUNT 9223372036854775807 is too large`},
	} {
		sc, err := ParseSchedule(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) || sc.Backoff != nil {
			t.Errorf("ParseSchedule(%q) = %+v, %v; want an error containing %q", tt.in, sc, err, tt.want)
		}
	}
	if n, _ := ParseSchedule("9223372036854775806 1s"); n.Attempts != 9223372036854775807 {
		t.Errorf("largest COUNT: Attempts = %d", n.Attempts)
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"10", "0.5", "1h2m", "-1s", "NaN", "1e3", "3000000h", "9223372036.854775807", ".", "1µs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			if d != 0 || err.Error() == "" {
				t.Fatalf("ParseDuration(%q) = %v, %q", s, d, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseDuration(%q) = %v < 0", s, d)
		}
		if back, err := ParseDuration(d.String()); err != nil || back != d {
			t.Fatalf("ParseDuration(%q) = %v; its String %q reads back as %v, %v", s, d, d.String(), back, err)
		}
	})
}

func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"5s", "10 5s", "5s 10m", "10 5s 10m", "0", "1 2 3", "5s 1s", "x y z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := ParseSchedule(s)
		if err != nil {
			return
		}
		if sc.Attempts < 0 || sc.Min < 0 || sc.Min > sc.Max || sc.Backoff == nil {
			t.Fatalf("ParseSchedule(%q) = %+v", s, sc)
		}
		for _, a := range []int{1, 2, 100, 1 << 40} {
			if d := sc.Backoff.Delay(at(a), nil); d < sc.Min || d > sc.Max {
				t.Fatalf("ParseSchedule(%q): attempt %d delay %v not in [%v, %v]", s, a, d, sc.Min, sc.Max)
			}
		}
	})
}
