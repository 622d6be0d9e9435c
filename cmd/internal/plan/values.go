package plan

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/cmd/internal/human"
	"github.com/spf13/pflag"
)

// countValue is a flag holding a whole number ≥ 0.
type countValue struct{ p *int }

func (v countValue) String() string { return strconv.Itoa(*v.p) }
func (v countValue) Type() string   { return "N" }
func (v countValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(strings.TrimSpace(s), "-") {
		return errTooManyCount()
	}
	if err != nil || n < 0 {
		return fmt.Errorf("want a whole number ≥ 0")
	}
	*v.p = n
	return nil
}

// errTooManyCount is the error of a count of valid syntax past what an int
// holds: said as too large, not as malformed. A function, not a variable:
// fmt.Errorf at package level would run at every start.
func errTooManyCount() error { return fmt.Errorf("too large: the most is %d", math.MaxInt) }

// positiveValue is a flag holding a whole number ≥ 1.
type positiveValue struct{ p *int }

func (v positiveValue) String() string { return strconv.Itoa(*v.p) }
func (v positiveValue) Type() string   { return "N" }
func (v positiveValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(strings.TrimSpace(s), "-") {
		return errTooManyCount()
	}
	if err != nil || n < 1 {
		return fmt.Errorf("want a whole number ≥ 1")
	}
	*v.p = n
	return nil
}

// durationValue is a flag holding a duration: Go syntax or bare seconds.
type durationValue struct{ p *time.Duration }

func (v durationValue) String() string { return human.Duration(*v.p) }
func (v durationValue) Type() string   { return "D" }
func (v durationValue) Set(s string) error {
	d, err := backoff.ParseDuration(s)
	switch {
	case errors.Is(err, backoff.ErrTooLong):
		return fmt.Errorf("too large: the most is %v (about 292 years)", time.Duration(math.MaxInt64).Truncate(time.Second))
	case errors.Is(err, backoff.ErrNegative):
		return errors.New("negative: want 0 or more, like 10, 1.5s, 250ms or 2m (bare numbers are seconds)")
	case err != nil:
		return fmt.Errorf("want a duration like 10, 1.5s, 250ms or 2m (bare numbers are seconds)")
	}
	*v.p = d
	return nil
}

// floatValue is a flag holding a finite number > 0.
type floatValue struct{ p *float64 }

func (v floatValue) String() string { return strconv.FormatFloat(*v.p, 'g', -1, 64) }
func (v floatValue) Type() string   { return "F" }
func (v floatValue) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Errorf("want a number > 0, like 2 or 1.5")
	}
	*v.p = f
	return nil
}

// enumValue is a flag holding one of a fixed set of words.
type enumValue struct {
	p       *string
	allowed []string
}

func (v enumValue) String() string { return *v.p }
func (v enumValue) Type() string   { return "WORD" }
func (v enumValue) Set(s string) error {
	w := normalWord(s)
	for _, a := range v.allowed {
		if w == a {
			*v.p = a
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(v.allowed, ", "))
}

// ValueProblem says what a flag accepts when its value is refused; for
// booleans, instead of strconv's "parsing "yes": invalid syntax".
func ValueProblem(v pflag.Value, err error) error {
	if v.Type() == "bool" {
		return errors.New("want true or false (or 1, 0, t, f)")
	}
	return err
}

// EnumWords returns the words flag f accepts when it is one of a fixed set
// (--backoff, --mode, --ci …), for completion.
func EnumWords(f *pflag.Flag) ([]string, bool) {
	if v, ok := f.Value.(enumValue); ok {
		return v.allowed, true
	}
	return nil, false
}
