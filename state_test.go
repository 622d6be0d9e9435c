//go:build unix

package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
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
	key := parts[len(parts)-1]
	parts = parts[:len(parts)-1]
	var c goredis.UniversalClient
	// rediss…: TLS, verified against the CA the script names.
	var conf *tls.Config
	if strings.HasPrefix(u.Scheme, "rediss") {
		pem, err := os.ReadFile(ts.Getenv("RETRY_REDIS_CACERT"))
		ts.Check(err)
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		conf = &tls.Config{RootCAs: pool}
	}
	switch strings.TrimPrefix(strings.TrimPrefix(u.Scheme, "rediss"), "redis") {
	case "+cluster":
		// On a cluster, the key's name is a hash tag: the hash and the
		// lock in one slot.
		key = "{" + key + "}"
		c = goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: strings.Split(u.Host, ","), Protocol: 2, TLSConfig: conf})
	case "+sentinel":
		db := 0
		if len(parts) == 2 {
			db, err = strconv.Atoi(parts[1])
			ts.Check(err)
		}
		c = goredis.NewFailoverClient(&goredis.FailoverOptions{MasterName: parts[0], SentinelAddrs: strings.Split(u.Host, ","), DB: db, Protocol: 2, TLSConfig: conf})
	default:
		db := 0
		if len(parts) == 1 {
			db, err = strconv.Atoi(parts[0])
			ts.Check(err)
		}
		c = goredis.NewClient(&goredis.Options{Addr: u.Host, DB: db, Protocol: 2, TLSConfig: conf})
	}
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

func init() { scriptCommands["fleet"] = cmdFleet }

// cmdFleet is `fleet N RELEASE PROG [ARGS...]`: N invocations of PROG at
// once, as if on two machines (member i has HOME and RETRY_STATE_DIR of its
// own under $WORK/machine-(i%2)), released together behind a barrier. It
// waits (at most a minute) until all but one have exited, creates the file
// RELEASE (which the one still running waits for), and waits for the last.
// Its stdout is "exit S: K" for each exit status S that K members had,
// sorted; its stderr the members' stderr, one after the other.
func cmdFleet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: fleet N RELEASE PROG [ARGS...]")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	gate := make(chan struct{})
	type member struct {
		cmd    *exec.Cmd
		stderr bytes.Buffer
		status int
	}
	members := make([]*member, n)
	exited := make(chan int, n)
	for i := range members {
		m := &member{cmd: scriptCommand(ts, args[2:])}
		home := ts.MkAbs(fmt.Sprintf("machine-%d", i%2))
		ts.Check(os.MkdirAll(filepath.Join(home, "state"), 0o700))
		m.cmd.Env = append(m.cmd.Env, "HOME="+home, "RETRY_STATE_DIR="+filepath.Join(home, "state"))
		m.cmd.Stderr = &m.stderr
		members[i] = m
		go func() {
			<-gate
			if err := m.cmd.Run(); m.cmd.ProcessState == nil {
				fmt.Fprintf(&m.stderr, "fleet: member %d: %v\n", i, err)
				m.status = -1
			} else {
				m.status = m.cmd.ProcessState.ExitCode()
			}
			exited <- i
		}()
	}
	close(gate)
	timeout := time.After(time.Minute)
	for k := range n {
		if k == n-1 {
			ts.Check(os.WriteFile(ts.MkAbs(args[1]), nil, 0o644))
		}
		select {
		case <-exited:
		case <-timeout:
			ts.Fatalf("fleet: %d of %d members exited within a minute", k, n)
		}
	}
	counts := map[int]int{}
	for _, m := range members {
		counts[m.status]++
		ts.Stderr().Write(m.stderr.Bytes())
	}
	var statuses []int
	for s := range counts {
		statuses = append(statuses, s)
	}
	sort.Ints(statuses)
	for _, s := range statuses {
		fmt.Fprintf(ts.Stdout(), "exit %d: %d\n", s, counts[s])
	}
}

func init() { scriptCommands["rediscmd"] = cmdRedisCmd }

// cmdRedisCmd is `rediscmd ADDR ARG...`: one command to the Redis server
// at ADDR, as redis-cli would send it; its reply goes to stdout.
func cmdRedisCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: rediscmd ADDR ARG...")
	}
	c := goredis.NewClient(&goredis.Options{Addr: args[0], Protocol: 2})
	defer c.Close()
	a := make([]any, len(args)-1)
	for i, s := range args[1:] {
		a[i] = s
	}
	v, err := c.Do(context.Background(), a...).Result()
	ts.Check(err)
	fmt.Fprintln(ts.Stdout(), v)
}
