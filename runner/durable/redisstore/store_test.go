package redisstore

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/retry-dev/retry/internal/testredis"
	"github.com/retry-dev/retry/runner/durable"
)

// startRedis runs a redis-server for the test (internal/testredis) and
// returns its address; it skips the test where redis-server is not
// installed.
func startRedis(t *testing.T) string {
	t.Helper()
	return testredis.Start(t, "the Redis state tests")
}

func mustKey(t *testing.T, raw string) *Key {
	t.Helper()
	k, err := ParseKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// rdb is a plain client of the server, to look at the keys as redis-cli
// would.
func rdb(t *testing.T, addr string) *goredis.Client {
	c := goredis.NewClient(&goredis.Options{Addr: addr, Protocol: 2})
	t.Cleanup(func() { c.Close() })
	return c
}

func sample(attempts int) *durable.State {
	st := durable.New(durable.Config{Identity: strings.Repeat("ab", 32), Command: []string{"job"}, MaxAttempts: 5})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for range attempts {
		n := st.Begin(now, durable.Config{MaxAttempts: 5, Command: []string{"job"}}, 42)
		st.Finish(now, durable.Entry{Attempt: n, Start: now, Result: "exit status 1", ExitCode: 1, Directive: "retry (server-side)", Delay: durable.Duration(time.Second)}, durable.Scheduled, 1, "r")
	}
	return st
}

func TestParseKey(t *testing.T) {
	for raw, want := range map[string]string{
		"redis://127.0.0.1/job":              "redis://127.0.0.1/job",
		"redis://127.0.0.1:7000/3/job":       "redis://127.0.0.1:7000/3/job",
		"rediss://ops:s3cr3t@h:6380/nightly": "rediss://ops:xxxxx@h:6380/nightly",
		"redis://h/a%20b":                    "redis://h/a%20b",
	} {
		k, err := ParseKey(raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if k.String() != want {
			t.Errorf("%s: String() = %s, want %s", raw, k, want)
		}
	}
	if k := mustKey(t, "redis://h/a%20b"); k.Name != "a b" {
		t.Errorf("key %q, want %q", k.Name, "a b")
	}
	for raw, want := range map[string]string{
		"redis://ops:s3cr3t@h":       "redis://ops:xxxxx@h: no KEY",
		"redis://ops:s3cr3t@h/":      "redis://ops:xxxxx@h/: no KEY",
		"redis://ops:s3cr3t@h/x/job": `database "x"`,
		"redis://ops:s3cr3t@h:0/job": `port "0"`,
		"http://h/job":               `scheme "http"`,
		"redis:///job":               "no host",
		"redis://h/job?db=2":         "no query",
		"redis://h/a%0Ab":            "control character",
	} {
		_, err := ParseKey(raw)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: %v, want an error with %q and no password", raw, err, want)
		}
	}
}

// The contract of a state file, on a key: the lock is exclusive; the hash
// holds the file format's fields; writes and the removal need the lock;
// the key expires; the lock goes with the invocation.
func TestLockWriteRemove(t *testing.T) {
	addr := startRedis(t)
	k := mustKey(t, "redis://"+addr+"/job")
	cli := rdb(t, addr)
	ctx := context.Background()

	a, err := Lock(k, Options{TTL: time.Minute, Keep: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if a.Exists() {
		t.Fatal("a sequence before the first write")
	}
	if st, err := a.Read(); st != nil || err != nil {
		t.Fatalf("Read = %v, %v; want none", st, err)
	}
	if _, err := Lock(k, Options{TTL: time.Minute}); !errors.Is(err, durable.ErrBusy) {
		t.Fatalf("second Lock: %v, want busy", err)
	}
	st := sample(2)
	if err := a.Write(st); err != nil {
		t.Fatal(err)
	}
	got, err := cli.HGetAll(ctx, KeyPrefix+"job").Result()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := durable.Fields(st)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HGETALL = %v\nwant the file format's fields %v", got, want)
	}
	for f, v := range map[string]string{"remaining_attempts": "3", "backoff": "1s", "status": "pending", "scheduled_at": "2026-01-02T03:04:06Z"} {
		if got[f] != v {
			t.Errorf("field %s = %q, want %q", f, got[f], v)
		}
	}
	if ttl := cli.PTTL(ctx, KeyPrefix+"job").Val(); ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("key expiry %v, want an hour", ttl)
	}
	if ttl := cli.PTTL(ctx, LockPrefix+"job").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("lock expiry %v, want a minute", ttl)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if n := cli.Exists(ctx, LockPrefix+"job").Val(); n != 0 {
		t.Error("the lock outlived Close")
	}

	b, err := Lock(k, Options{TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	back, err := b.Read()
	if err != nil || back == nil || back.Attempts != 2 {
		t.Fatalf("read back %+v, %v; want 2 attempts", back, err)
	}
	if info, err := Read(k); err != nil || !info.Held || info.State.Attempts != 2 {
		t.Errorf("Read while held: %+v, %v", info, err)
	}
	if err := b.Remove(); err != nil {
		t.Fatal(err)
	}
	if n := cli.Exists(ctx, KeyPrefix+"job", LockPrefix+"job").Val(); n != 0 {
		t.Errorf("%d keys left after Remove", n)
	}
	b.Close()
	if info, err := Read(k); err != nil || info.Held || info.State != nil {
		t.Errorf("Read after Remove: %+v, %v", info, err)
	}
}

// An invocation whose lock expired (its attempt outlasted it) cannot
// write over whoever took the lock next.
func TestLostLock(t *testing.T) {
	addr := startRedis(t)
	k := mustKey(t, "redis://"+addr+"/job")
	a, err := Lock(k, Options{TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rdb(t, addr).Del(context.Background(), LockPrefix+"job") // as its expiry would
	b, err := Lock(k, Options{TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Write(sample(1)); err != nil {
		t.Fatal(err)
	}
	var lost *LostError
	if err := a.Write(sample(3)); !errors.As(err, &lost) {
		t.Errorf("write after the lock was lost: %v, want a *LostError", err)
	}
	if err := a.Remove(); !errors.As(err, &lost) {
		t.Errorf("remove after the lock was lost: %v, want a *LostError", err)
	}
	a.Close()
	info, err := Read(k)
	if err != nil || !info.Held || info.State.Attempts != 1 {
		t.Errorf("the successor's state and lock: %+v, %v", info, err)
	}
}

// A lock left by a process that died on this machine is taken over; one
// held by a live process, or left by another machine, is not.
func TestTakeOverDeadHolder(t *testing.T) {
	if machineID() == "" {
		t.Skip("this system cannot name its machine: locks are freed by expiry only")
	}
	addr := startRedis(t)
	k := mustKey(t, "redis://"+addr+"/job")
	cli := rdb(t, addr)
	ctx := context.Background()
	dead := exec.Command("true")
	if err := dead.Start(); err != nil {
		t.Fatal(err)
	}
	start := startTime(dead.Process.Pid)
	dead.Wait()
	me := self()
	for name, c := range map[string]struct {
		value string
		busy  bool
	}{
		"dead here":        {holder{machine: me.machine, pid: dead.Process.Pid, start: start}.value("t"), false},
		"pid reused":       {holder{machine: me.machine, pid: os.Getpid(), start: "1"}.value("t"), false},
		"alive here":       {me.value("t"), true},
		"another machine":  {holder{machine: "other/1", pid: dead.Process.Pid, start: start}.value("t"), true},
		"unknown machine":  {holder{pid: dead.Process.Pid, start: start}.value("t"), true},
		"not retry's lock": {"x", true},
	} {
		cli.Set(ctx, LockPrefix+"job", c.value, time.Minute)
		s, err := Lock(k, Options{TTL: time.Minute})
		if c.busy {
			if !errors.Is(err, durable.ErrBusy) {
				t.Errorf("%s: %v, want busy", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v, want the lock taken over", name, err)
			continue
		}
		if v := cli.Get(ctx, LockPrefix+"job").Val(); v != s.value {
			t.Errorf("%s: lock %q, want ours %q", name, v, s.value)
		}
		s.Close()
	}
}

// Twenty invocations at once: exactly one holds the lock.
func TestOneHolder(t *testing.T) {
	addr := startRedis(t)
	k := mustKey(t, "redis://"+addr+"/job")
	var wg sync.WaitGroup
	var mu sync.Mutex
	held, busy := 0, 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Lock(k, Options{TTL: time.Minute})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				held++ // never closed: the lock stays taken
			case errors.Is(err, durable.ErrBusy):
				busy++
			default:
				t.Error(err)
			}
			_ = s
		}()
	}
	wg.Wait()
	if held != 1 || busy != 19 {
		t.Errorf("%d held, %d busy; want 1 and 19", held, busy)
	}
}

// The lock of an attempt without a bound is renewed while it runs.
func TestRenew(t *testing.T) {
	addr := startRedis(t)
	k := mustKey(t, "redis://"+addr+"/job")
	s, err := Lock(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cli := rdb(t, addr)
	cli.PExpire(context.Background(), LockPrefix+"job", DefaultLockTTL/2)
	s.stop() // run one renewal by hand instead of waiting for the ticker
	if _, err := s.run(renewScript.Get(), s.value, DefaultLockTTL.Milliseconds(), (DefaultLockTTL + 2*time.Second).Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if ttl := cli.PTTL(context.Background(), LockPrefix+"job").Val(); ttl <= DefaultLockTTL/2 {
		t.Errorf("lock expiry %v after a renewal, want about %v", ttl, DefaultLockTTL)
	}
	if ttl := cli.PTTL(context.Background(), FencePrefix+"job").Val(); ttl <= DefaultLockTTL {
		t.Errorf("fence expiry %v after a renewal, want about %v", ttl, DefaultLockTTL+2*time.Second)
	}
}

// The fence: a lock that expired during an attempt (the hash says
// running) keeps every other invocation out until the fence expires too,
// --kill-after later; the lease is told when the lock was taken and when
// released. A fence over a sequence that is not running is no obstacle.
func TestFence(t *testing.T) {
	addr := startRedis(t)
	k := mustKey(t, "redis://"+addr+"/job")
	cli := rdb(t, addr)
	ctx := context.Background()
	var leases []time.Time
	before := time.Now()
	a, err := Lock(k, Options{TTL: time.Minute, KillAfter: 5 * time.Second, Lease: func(end time.Time) { leases = append(leases, end) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(leases) != 1 || leases[0].Before(before.Add(time.Minute)) || leases[0].After(time.Now().Add(time.Minute)) {
		t.Fatalf("leases %v, want one a minute after the lock was taken", leases)
	}
	if ttl := cli.PTTL(ctx, FencePrefix+"job").Val(); ttl <= time.Minute+5*time.Second || ttl > time.Minute+6*time.Second {
		t.Errorf("fence expiry %v, want the lock's plus --kill-after plus a second", ttl)
	}
	st := sample(0)
	st.Begin(time.Now(), durable.Config{MaxAttempts: 5, Command: []string{"job"}}, 42) // running
	if err := a.Write(st); err != nil {
		t.Fatal(err)
	}
	cli.Del(ctx, LockPrefix+"job") // as its expiry would
	var fenced *FencedError
	if _, err := Lock(k, Options{TTL: time.Minute}); !errors.As(err, &fenced) || fenced.Left <= time.Minute {
		t.Fatalf("Lock over the fence: %v, want a *FencedError with more than a minute left", err)
	}
	a.Close()
	if len(leases) != 2 || !leases[1].IsZero() {
		t.Errorf("leases %v, want the zero time at Close", leases)
	}
	if n := cli.Exists(ctx, FencePrefix+"job").Val(); n != 0 {
		t.Error("the fence outlived its holder's Close")
	}
	b, err := Lock(k, Options{TTL: time.Minute})
	if err != nil {
		t.Fatalf("Lock once the holder is gone: %v", err)
	}
	b.Close()

	// Not running: the fence of an invocation that died between its
	// write and its release does not count.
	cli.HSet(ctx, KeyPrefix+"job", "status", "pending")
	cli.Set(ctx, FencePrefix+"job", "v1 other - 1 -", time.Minute)
	c, err := Lock(k, Options{TTL: time.Minute})
	if err != nil {
		t.Fatalf("Lock over the fence of a sequence not running: %v", err)
	}
	c.Close()
}

// A store that does not answer is unreachable; a server's refusal (a key
// of another type) is not; neither shows the password.
func TestErrors(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	_, err := Lock(mustKey(t, "redis://ops:s3cr3t@127.0.0.1:"+strconv.Itoa(port)+"/job"), Options{})
	var un *UnreachableError
	if !errors.As(err, &un) || strings.Contains(err.Error(), "s3cr3t") || !strings.HasPrefix(err.Error(), "the state store is unreachable: dial tcp 127.0.0.1:") {
		t.Errorf("closed port: %v, want an *UnreachableError without the password", err)
	}
	addr := startRedis(t)
	rdb(t, addr).Set(context.Background(), KeyPrefix+"str", "x", 0)
	_, err = Lock(mustKey(t, "redis://"+addr+"/str"), Options{})
	if err == nil || errors.As(err, &un) || !strings.Contains(err.Error(), "WRONGTYPE retry:state:str holds a string, not a retry state") {
		t.Errorf("a key of another type: %v, want the server's WRONGTYPE", err)
	}
	if n := rdb(t, addr).Exists(context.Background(), LockPrefix+"str").Val(); n != 0 {
		t.Error("a refused Lock left its lock behind")
	}
}
