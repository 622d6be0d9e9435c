package backoff

import "time"

// Params are what a named strategy is built from: a run's --delay,
// --max-delay and --multiplier.
type Params struct {
	Base       time.Duration // the first delay (the waiter's minimum)
	Max        time.Duration // the cap on a delay, before jitter
	Multiplier float64       // exponential's factor
}

// Strategy is a delay strategy as the command line names it: the one table
// that --backoff's words, its help, its completion, the default jitter and
// the building of the backoff all read, so that adding a strategy touches
// this table and the strategy's own file.
type Strategy struct {
	Name string
	// Help says in one line what the delays are, for completion.
	Help string
	// DefaultJitter is the jitter without --jitter: Full where spreading a
	// fleet's retries is the point (exponential, decorrelated), None where
	// users read the delays as written ("constant" is constant).
	DefaultJitter Jitter
	// Waiter: the Smithy waiter formula, which jitters by itself, keeps
	// the same delays for throttling, and makes a final poll at the
	// deadline.
	Waiter bool
	// build returns the strategy's backoff, capped at p.Max and jittered
	// with j unless it caps and jitters by itself.
	build func(p Params, j Jitter) Backoff
}

// New returns s's backoff for p, jittered with j (see Strategy.build).
func (s Strategy) New(p Params, j Jitter) Backoff { return s.build(p, j) }

// capped is the cap and the jitter around b, the cap first so that a
// capped delay still spreads out.
func capped(b Backoff, p Params, j Jitter) Backoff { return WithJitter(WithCap(b, p.Max), j) }

// table is the strategies, in the order help and completion list them:
// the default first.
var table = []Strategy{
	{Name: "exponential", Help: "--delay × --multiplier^(attempt-1), capped at --max-delay", DefaultJitter: Full,
		build: func(p Params, j Jitter) Backoff { return capped(Exponential(p.Base, p.Multiplier), p, j) }},
	{Name: "constant", Help: "--delay every time", DefaultJitter: None,
		build: func(p Params, j Jitter) Backoff { return capped(Constant(p.Base), p, j) }},
	{Name: "linear", Help: "--delay × attempt, capped at --max-delay", DefaultJitter: None,
		build: func(p Params, j Jitter) Backoff { return capped(Linear(p.Base), p, j) }},
	{Name: "fibonacci", Help: "--delay × the attempt's Fibonacci number (1, 1, 2, 3, 5, …), capped", DefaultJitter: None,
		build: func(p Params, j Jitter) Backoff { return capped(Fibonacci(p.Base), p, j) }},
	{Name: "decorrelated", Help: "AWS decorrelated jitter: random between --delay and 3× the last delay, capped", DefaultJitter: Full,
		build: func(p Params, _ Jitter) Backoff { return Decorrelated(p.Base, p.Max) }},
	{Name: "waiter", Help: "the Smithy waiter formula: random between --delay and min(--max-delay, --delay×2^(attempt-1))", DefaultJitter: None, Waiter: true,
		build: func(p Params, _ Jitter) Backoff { return Waiter(p.Base, p.Max) }},
}

// Strategies returns the table of named table, the default first.
func Strategies() []Strategy { return append([]Strategy(nil), table...) }

// Lookup returns the strategy named name (as Strategies spells it), and
// whether there is one.
func Lookup(name string) (Strategy, bool) {
	for _, s := range table {
		if s.Name == name {
			return s, true
		}
	}
	return Strategy{}, false
}

// Names returns the names of the table, the default first.
func Names() []string {
	names := make([]string, len(table))
	for i, s := range table {
		names[i] = s.Name
	}
	return names
}
