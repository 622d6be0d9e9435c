package redis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/retry-dev/retry/bucket"
	"github.com/retry-dev/retry/internal/testredis"
)

// startRedis runs a redis-server for the test (internal/testredis) and
// returns its URL. It skips the test where redis-server is not installed.
func startRedis(t *testing.T) *URL {
	t.Helper()
	u, err := ParseURL("redis://" + testredis.Start(t, "the Redis store tests"))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// testScope returns scope name of a fresh client, on a clock the test
// moves.
func testScope(t *testing.T, u *URL, name string, now *time.Time) *Scope {
	t.Helper()
	c := Dial(u)
	t.Cleanup(func() { c.Close() })
	s, err := c.Scope(name, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.SetClock(func() time.Time { return *now })
	return s
}

// The Lua bucket follows the bucket package's arithmetic exactly: the same
// sequence of takes, refunds and time on a Standard and on Redis leaves
// the same tokens and the same refill waits, with no reserve and with the
// reserve of --when-empty wait.
func TestRedisBucketMatchesStandard(t *testing.T) {
	u := startRedis(t)
	for _, reserve := range []int{0, bucket.WaitReserve(bucket.DefaultCapacity)} {
		t.Run(fmt.Sprintf("reserve=%d", reserve), func(t *testing.T) {
			testRedisBucketMatchesStandard(t, u, reserve)
		})
	}
}

func testRedisBucketMatchesStandard(t *testing.T, u *URL, reserve int) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := testScope(t, u, fmt.Sprintf("api%d", reserve), &now)
	s.SetReserve(reserve)
	std := bucket.NewStandard(bucket.StandardOptions{Now: func() time.Time { return now }, Reserve: reserve})
	// retry takes a retry's cost from std the way a run does.
	retry := func(cost int) (bucket.Token, error) {
		tok, _ := std.Acquire(ctx)
		return tok.ScheduleRetry(ctx, cost == bucket.ThrottlingRetryCost)
	}
	steps := []struct {
		advance time.Duration
		op      string
		n       int
	}{
		{0, "take", 14}, {0, "take", 14}, {10 * time.Millisecond, "take", 5},
		{0, "drain", 0}, {150 * time.Millisecond, "take", 14}, {90 * time.Millisecond, "take", 5},
		{0, "give", 1}, {1234 * time.Millisecond, "take", 14}, {450 * time.Millisecond, "give", 14},
		{time.Minute, "take", 14}, {-time.Hour, "take", 14}, {time.Hour + time.Second, "give", 1},
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		var errR, errS error
		switch st.op {
		case "take":
			errR = s.Take(ctx, st.n)
			var next bucket.Token
			if next, errS = retry(st.n); errS == nil {
				next.NotifyFailure()
			}
		case "give":
			if st.n == 1 { // a first-try success
				tok, _ := std.Acquire(ctx)
				tok.NotifySuccess()
				errR = s.Give(ctx, 1)
				break
			}
			// A retry paid, then its success refunds it.
			var next bucket.Token
			if next, errS = retry(st.n); errS == nil {
				next.NotifySuccess()
			}
			if errR = s.Take(ctx, st.n); errR == nil {
				errR = s.Give(ctx, st.n)
			}
		case "drain":
			for s.Take(ctx, 14) == nil {
			}
			for {
				next, err := retry(14)
				if err != nil {
					break
				}
				next.NotifyFailure()
			}
		}
		var er, es *bucket.EmptyError
		if errors.As(errR, &er) != errors.As(errS, &es) || (er != nil && *er != *es) {
			t.Fatalf("step %d (%s %d): redis %v, standard %v", i, st.op, st.n, errR, errS)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := info.Tokens, std.Available(); got != want {
			t.Fatalf("step %d (%s %d): redis holds %d, standard %d", i, st.op, st.n, got, want)
		}
	}
}

// The Lua CUBIC limiter follows bucket.Adaptive: the same responses at the
// same times give the same fill rate, measured rate and send waits.
func TestRedisAdaptiveMatchesAdaptive(t *testing.T) {
	u := startRedis(t)
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 300_000_000, time.UTC)
	s := testScope(t, u, "ddb", &now)
	errWouldWait := errors.New("would wait")
	a := bucket.NewAdaptive(bucket.AdaptiveOptions{
		Now:   func() time.Time { return now },
		Sleep: func(context.Context, time.Duration) error { return errWouldWait },
	})
	if ok, _, err := s.Send(ctx); !ok || err != nil { // creates the state at now, as NewAdaptive
		t.Fatalf("first send: %v %v", ok, err)
	}
	type step struct {
		advance   time.Duration
		throttled bool
	}
	// A burst within the first half-second, throttled at its end: the rate
	// so far of the open bucket (bucket.adaptiveState.rateSoFar).
	steps := []step{{5 * time.Millisecond, false}, {0, false}, {0, false}, {10 * time.Millisecond, false}, {0, true}}
	for i := range 40 {
		steps = append(steps, step{time.Duration(90+i*7) * time.Millisecond, i%9 == 3 || i == 4})
	}
	outcomes := map[bool]int{}
	for i, st := range steps {
		now = now.Add(st.advance)
		if err := s.Record(ctx, st.throttled); err != nil {
			t.Fatal(err)
		}
		a.Update(st.throttled)
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := a.Stats()
		got := info.Adaptive
		if got == nil || got.Enabled != want.Enabled || !close(got.FillRate, want.FillRate) || !close(got.MeasuredRate, want.MeasuredRate) {
			t.Fatalf("step %d: redis %+v, adaptive %+v", i, got, want)
		}
		// A send: both grant, or both say the same wait.
		okR, waitR, err := s.Send(ctx)
		if err != nil {
			t.Fatal(err)
		}
		errA := a.Wait(ctx)
		if errA != nil && errA != errWouldWait {
			t.Fatal(errA)
		}
		if okR != (errA == nil) {
			t.Fatalf("step %d: redis send %v (wait %v), adaptive %v", i, okR, waitR, errA)
		}
		if got.Enabled {
			outcomes[okR]++
		}
	}
	if outcomes[true] == 0 || outcomes[false] == 0 {
		t.Errorf("paced sends granted %d, refused %d: the steps do not exercise both", outcomes[true], outcomes[false])
	}
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestRedisScopeAdmin(t *testing.T) {
	u := startRedis(t)
	ctx := context.Background()
	now := time.Now()
	s := testScope(t, u, "a", &now)
	c := s.c
	if err := s.Take(ctx, 14); err != nil {
		t.Fatal(err)
	}
	names, err := c.List(ctx)
	if err != nil || fmt.Sprint(names) != "[a]" {
		t.Fatalf("List = %v, %v", names, err)
	}
	if ttl := c.rdb.PTTL(ctx, KeyPrefix+"a").Val(); ttl <= KeyTTL-time.Minute || ttl > KeyTTL {
		t.Errorf("key expires in %v, want about %v", ttl, KeyTTL)
	}
	if err := c.Reset(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := c.Reset(ctx, "a"); !errors.Is(err, bucket.ErrNoScope) {
		t.Errorf("second Reset = %v, want ErrNoScope", err)
	}
	if _, err := s.Info(ctx); !errors.Is(err, bucket.ErrNoScope) {
		t.Errorf("Info after Reset = %v, want ErrNoScope", err)
	}
}

func TestParseURL(t *testing.T) {
	for _, bad := range []string{"http://h", "redis://", "redis://h:0", "redis://h:", "redis://h:99999", "redis://h:x", "redis://h/db", "redis://h/1?x=1", "unix:///s",
		"redis://h1,h2", "redis+cluster://h:1/0", "redis+cluster://h:1,", "redis+sentinel://s:1", "redis+sentinel://s:1/m/x", "redis+sentinel://s:1/m/1/2", "redis+cluster://[::1/"} {
		if _, err := ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) succeeded", bad)
		}
	}
	for raw, want := range map[string]URL{
		"rediss://ops:s3cr3t@h/2":                        {Topology: Single, TLS: true, Addrs: []string{"h:6379"}, DB: 2, redacted: "rediss://ops:xxxxx@h/2"},
		"redis://[::1]:7000":                             {Addrs: []string{"[::1]:7000"}, redacted: "redis://[::1]:7000"},
		"redis+cluster://ops:s3cr3t@a:7000,b,[::1]:7002": {Topology: Cluster, Addrs: []string{"a:7000", "b:6379", "[::1]:7002"}, redacted: "redis+cluster://ops:xxxxx@a:7000,b,[::1]:7002"},
		"rediss+cluster://a:7000/":                       {Topology: Cluster, TLS: true, Addrs: []string{"a:7000"}, redacted: "rediss+cluster://a:7000"},
		"redis+sentinel://:pw@s1,s2:26380/mymaster/3":    {Topology: Sentinel, Addrs: []string{"s1:26379", "s2:26380"}, Master: "mymaster", DB: 3, redacted: "redis+sentinel://:xxxxx@s1,s2:26380/mymaster/3"},
		"rediss+sentinel://s1:1/mymaster":                {Topology: Sentinel, TLS: true, Addrs: []string{"s1:1"}, Master: "mymaster", redacted: "rediss+sentinel://s1:1/mymaster"},
	} {
		u, err := ParseURL(raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if u.Topology != want.Topology || u.TLS != want.TLS || fmt.Sprint(u.Addrs) != fmt.Sprint(want.Addrs) || u.Master != want.Master || u.DB != want.DB || u.String() != want.redacted {
			t.Errorf("%s: %+v, want %+v", raw, *u, want)
		}
	}
	u, err := ParseURL("rediss://ops:s3cr3t@h/2")
	if err != nil || u.password != "s3cr3t" || u.user != "ops" || !u.PasswordInURL() {
		t.Errorf("the URL's user and password: %+v, %v", u, err)
	}
	if _, err := ParseURL("redis://ops:s3cr3t@h:99999"); err == nil || !strings.Contains(err.Error(), "xxxxx") || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("error %v shows the password or no redacted URL", err)
	}
}
