//go:build unix

package main

import (
	"encoding/json"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCommands["startsbefore"] = cmdStartsBefore }

// cmdStartsBefore is `startsbefore REPORT D`: every attempt in the --report
// file REPORT started less than D after the run started (by retry's own
// clock, as the report records it). With D the budget minus the waiter's
// minDelay, less a margin, it checks that every attempt had time to run
// before the deadline, with no assertion on how long anything took.
func cmdStartsBefore(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: startsbefore REPORT D")
	}
	limit, err := time.ParseDuration(args[1])
	ts.Check(err)
	var r struct {
		Started  time.Time
		Attempts []struct {
			Attempt int
			Start   time.Time
		}
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &r))
	if r.Started.IsZero() || len(r.Attempts) == 0 {
		ts.Fatalf("%s: no start time or no attempts", args[0])
	}
	for _, a := range r.Attempts {
		if at := a.Start.Sub(r.Started); at >= limit {
			ts.Fatalf("attempt %d started %v after the run, want less than %v", a.Attempt, at, limit)
		}
	}
}
