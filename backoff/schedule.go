package backoff

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// DefaultScheduleMax is the MAX of a schedule that gives none.
const DefaultScheduleMax = time.Hour

// scheduleHelp says what ParseSchedule accepts; errors end with it.
const scheduleHelp = `want "[COUNT] MIN [MAX]", e.g. "5s", "10 5s", "5s 10m" or "10 5s 10m"`

// Schedule is a compact retry schedule, FTL's "//ftl:retry [COUNT] MIN [MAX]":
// COUNT retries, delays doubling from MIN and capped at MAX, no jitter.
type Schedule struct {
	// Attempts is the most attempts, the first included: COUNT+1. 0 means
	// unlimited (no COUNT was given).
	Attempts int
	// Min is the first delay; Max caps the doubling (DefaultScheduleMax
	// when not given, raised to Min if Min is longer).
	Min, Max time.Duration
	// Backoff is WithCap(Exponential(Min, 2), Max): Min, 2×Min, 4×Min…, Max.
	Backoff Backoff
}

// ParseSchedule reads "[COUNT] MIN [MAX]": fields separated by blanks,
// durations as ParseDuration reads them (so "10" alone is MIN = 10s), and
// COUNT a whole number of retries ≥ 0. With two fields, a first field made
// of digits only is COUNT ("10 5s", "10 5"); otherwise the two fields are
// MIN and MAX ("5s 10m"). "0 5s" allows no retry (Attempts 1).
//
// Without MAX, Max is DefaultScheduleMax, or Min when Min is longer. A MIN
// longer than an explicit MAX is an error, as are an empty string, more
// than three fields, and a COUNT too large to add the first attempt to.
// Errors say which field is wrong and what the form is.
//
// A lone MIN doubles too, as the seed's table update does
// (backoff = MIN(backoff×2, max_backoff)) and as SPEC.md says, although the
// seed's first example calls "5s" "retry every 5s"; write "5s 5s" for a
// constant delay.
func ParseSchedule(s string) (Schedule, error) {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 3 {
		return Schedule{}, fmt.Errorf("invalid schedule %q: %s", s, scheduleHelp)
	}
	var count string
	if len(f) == 3 || (len(f) == 2 && isCount(f[0])) {
		count, f = f[0], f[1:]
	}
	sc := Schedule{Max: DefaultScheduleMax}
	if count != "" {
		if !isCount(count) {
			return Schedule{}, fmt.Errorf("invalid schedule %q: COUNT %q is not a whole number of retries; %s", s, count, scheduleHelp)
		}
		n, err := strconv.Atoi(count)
		if err != nil || n >= math.MaxInt {
			return Schedule{}, fmt.Errorf("invalid schedule %q: COUNT %s is too large", s, count)
		}
		sc.Attempts = n + 1
	}
	var err error
	if sc.Min, err = ParseDuration(f[0]); err != nil {
		return Schedule{}, fmt.Errorf("invalid schedule %q: MIN %v", s, err)
	}
	if len(f) == 2 {
		if sc.Max, err = ParseDuration(f[1]); err != nil {
			return Schedule{}, fmt.Errorf("invalid schedule %q: MAX %v", s, err)
		}
		if sc.Min > sc.Max {
			return Schedule{}, fmt.Errorf("invalid schedule %q: MIN %v is longer than MAX %v", s, sc.Min, sc.Max)
		}
	}
	sc.Max = max(sc.Max, sc.Min)
	sc.Backoff = WithCap(Exponential(sc.Min, 2), sc.Max)
	return sc, nil
}

// String returns the schedule in the form ParseSchedule reads, always with
// MAX: "10 5s 1h0m0s", or "5s 10m0s" when Attempts is 0 (unlimited).
func (sc Schedule) String() string {
	if sc.Attempts > 0 {
		return fmt.Sprintf("%d %v %v", sc.Attempts-1, sc.Min, sc.Max)
	}
	return fmt.Sprintf("%v %v", sc.Min, sc.Max)
}

// isCount reports whether t is made of ASCII digits only.
func isCount(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}
