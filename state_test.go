package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script helpers for the durable sequences of --state.
func init() {
	scriptPrograms["touchwait"] = touchwaitMain
	scriptCommands["waitdue"] = cmdWaitDue
}

// touchwaitMain is `touchwait CREATE WAITFOR [CODE]`: it creates the file
// CREATE, waits (at most a minute) until WAITFOR exists, and exits with
// CODE (0). It prints RETRY_ATTEMPT on stdout first.
func touchwaitMain() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: touchwait CREATE WAITFOR [CODE]")
		os.Exit(2)
	}
	fmt.Printf("attempt %s\n", os.Getenv("RETRY_ATTEMPT"))
	if err := os.WriteFile(os.Args[1], nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	deadline := time.Now().Add(time.Minute)
	for !fileExists(os.Args[2]) {
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "touchwait: %s did not appear within a minute\n", os.Args[2])
			os.Exit(2)
		}
		time.Sleep(5 * time.Millisecond)
	}
	code := 0
	if len(os.Args) > 3 {
		code, _ = strconv.Atoi(os.Args[3])
	}
	os.Exit(code)
}

// cmdWaitDue is `waitdue FILE`: it waits until the next attempt of the
// sequence in the state FILE is due — it reads next_due from the file, so
// scripts synchronise on the state rather than on a guessed duration. A
// running state (its process was killed) is due when its next_due says.
func cmdWaitDue(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitdue FILE")
	}
	var st struct {
		Status  string    `json:"status"`
		NextDue time.Time `json:"next_due"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &st))
	if st.Status != "pending" && st.Status != "running" { // running: its process died
		ts.Fatalf("%s: status %q, want pending", args[0], st.Status)
	}
	d := time.Until(st.NextDue)
	if d > time.Minute {
		ts.Fatalf("%s: next attempt due in %v, more than a minute", args[0], d)
	}
	time.Sleep(d + time.Millisecond)
}
