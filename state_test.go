package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
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

// cmdWaitDue is `waitdue FILE|URL`: it waits until the next attempt of the
// sequence in the state FILE (or the Redis key of a redis://HOST:PORT/KEY)
// is due — it reads scheduled_at from the state, so scripts synchronise on
// the state rather than on a guessed duration. A running state (its
// process was killed) is due when its scheduled_at says.
func cmdWaitDue(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitdue FILE|URL")
	}
	var st struct {
		Status  string    `json:"status"`
		NextDue time.Time `json:"scheduled_at"`
	}
	if strings.Contains(args[0], "://") {
		f := redisState(ts, args[0])
		st.Status = f["status"]
		var err error
		st.NextDue, err = time.Parse(time.RFC3339Nano, f["scheduled_at"])
		ts.Check(err)
	} else {
		ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &st))
	}
	if st.Status != "pending" && st.Status != "running" { // running: its process died
		ts.Fatalf("%s: status %q, want pending", args[0], st.Status)
	}
	d := time.Until(st.NextDue)
	if d > time.Minute {
		ts.Fatalf("%s: next attempt due in %v, more than a minute", args[0], d)
	}
	time.Sleep(d + time.Millisecond)
}

func init() { scriptCommands["statefields"] = cmdStateFields }

// redisState returns the fields of the sequence at a redis://ADDR[/DB]/KEY
// (HGETALL retry:state:KEY), with two of its own: "@lock", held or free,
// and "@expires", yes when the hash has an expiry.
func redisState(ts *testscript.TestScript, raw string) map[string]string {
	u, err := url.Parse(raw)
	ts.Check(err)
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	db := 0
	if len(parts) == 2 {
		db, err = strconv.Atoi(parts[0])
		ts.Check(err)
	}
	key := parts[len(parts)-1]
	c := goredis.NewClient(&goredis.Options{Addr: u.Host, DB: db, Protocol: 2})
	defer c.Close()
	ctx := context.Background()
	f, err := c.HGetAll(ctx, "retry:state:"+key).Result()
	ts.Check(err)
	f["@lock"] = "free"
	if c.Exists(ctx, "retry:state-lock:"+key).Val() == 1 {
		f["@lock"] = "held"
	}
	f["@expires"] = "no"
	if c.PTTL(ctx, "retry:state:"+key).Val() > 0 {
		f["@expires"] = "yes"
	}
	return f
}

// cmdStateFields is `statefields FILE|URL [FIELD...]`: the top-level fields
// of a state file, or of a Redis key's hash, as the hash stores them
// (strings as they are, the rest as compact JSON): with FIELDs, one
// "FIELD=VALUE" line each ("FIELD absent" when there is none); without,
// the names, one a line, sorted. Scripts compare a file's with a key's.
func cmdStateFields(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: statefields FILE|URL [FIELD...]")
	}
	var f map[string]string
	if strings.Contains(args[0], "://") {
		f = redisState(ts, args[0])
	} else {
		var m map[string]json.RawMessage
		ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &m))
		f = map[string]string{}
		for k, v := range m {
			var s string
			if json.Unmarshal(v, &s) == nil {
				f[k] = s
				continue
			}
			var b bytes.Buffer
			ts.Check(json.Compact(&b, v))
			f[k] = b.String()
		}
	}
	if len(args) == 1 {
		var names []string
		for k := range f {
			if !strings.HasPrefix(k, "@") {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintln(ts.Stdout(), n)
		}
		return
	}
	for _, k := range args[1:] {
		if v, ok := f[k]; ok {
			fmt.Fprintf(ts.Stdout(), "%s=%s\n", k, v)
		} else {
			fmt.Fprintf(ts.Stdout(), "%s absent\n", k)
		}
	}
}
