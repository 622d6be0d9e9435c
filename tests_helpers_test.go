package main

import (
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands that stand in for host tools (wc, sed, uniq, stat, ls), so
// scripts run the same on any machine.
func init() {
	scriptCommands["lines"] = cmdLines
}

// cmdLines is `lines FILE N`: FILE holds exactly N lines (with `!`, not N).
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: lines FILE N")
	}
	got := strings.Count(ts.ReadFile(args[0]), "\n")
	if (strconv.Itoa(got) == args[1]) == neg {
		ts.Fatalf("%s has %d lines, want %s%s", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}
