//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/rogpeppe/go-internal/testscript"
)

// What proves that two attempts of a --state sequence never run at once:
// each attempt (leasestep) looks, as it starts, for a live process of
// every attempt before it, and scripts wait on the server's keys and on
// processes, never on a guessed duration.

func init() {
	scriptPrograms["leasestep"] = leasestepMain
	scriptCommands["waitnokey"] = cmdWaitNoKey
	scriptCommands["waitdead"] = cmdWaitDead
}

// leasestepMain is `leasestep DIR`: attempt N (RETRY_ATTEMPT) writes its
// pid to DIR/N.pid; if the process of another DIR/*.pid is still alive
// (not a zombie) it appends a line to DIR/overlap; then it creates
// DIR/N.started and waits (at most two minutes) until DIR/N.release
// exists, and exits 1.
func leasestepMain() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: leasestep DIR")
		os.Exit(2)
	}
	dir, n := os.Args[1], os.Getenv("RETRY_ATTEMPT")
	must := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "leasestep:", err)
			os.Exit(2)
		}
	}
	must(os.WriteFile(filepath.Join(dir, n+".pid"), []byte(strconv.Itoa(os.Getpid())), 0o644))
	others, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	for _, f := range others {
		if filepath.Base(f) == n+".pid" {
			continue
		}
		b, _ := os.ReadFile(f)
		if pid, err := strconv.Atoi(string(b)); err == nil && processLive(pid) {
			o, err := os.OpenFile(filepath.Join(dir, "overlap"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			must(err)
			fmt.Fprintf(o, "attempt %s started while %s (pid %d) runs\n", n, filepath.Base(f), pid)
			o.Close()
		}
	}
	must(os.WriteFile(filepath.Join(dir, n+".started"), nil, 0o644))
	deadline := time.Now().Add(2 * time.Minute)
	for !fileExists(filepath.Join(dir, n+".release")) {
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "leasestep: %s.release did not appear\n", n)
			os.Exit(2)
		}
		time.Sleep(5 * time.Millisecond)
	}
	os.Exit(1)
}

// processLive reports whether pid is a process that is not a zombie.
func processLive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z' && s[i+2] != 'X'
}

// cmdWaitNoKey is `waitnokey ADDR KEY`: it waits (at most two minutes)
// until the Redis server at ADDR has no KEY (it expired).
func cmdWaitNoKey(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitnokey ADDR KEY")
	}
	c := goredis.NewClient(&goredis.Options{Addr: args[0], Protocol: 2})
	defer c.Close()
	until(ts, "the key "+args[1]+" is gone", func() bool {
		n, err := c.Exists(context.Background(), args[1]).Result()
		return err == nil && n == 0
	})
}

// cmdWaitDead is `waitdead PIDFILE`: it waits (at most two minutes) until
// the process whose pid PIDFILE holds is gone or a zombie.
func cmdWaitDead(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitdead PIDFILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	ts.Check(err)
	until(ts, "process "+strconv.Itoa(pid)+" is gone", func() bool { return !processLive(pid) })
}
