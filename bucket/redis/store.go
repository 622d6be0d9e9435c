// Package redis keeps retry scopes in a Redis server shared by many
// machines (`--scope-store redis://…`): each scope is one hash, every
// acquire, refund and update one atomic server-side script on the server's
// clock, and keys expire when unused. It uses github.com/redis/go-redis/v9.
package redis

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/retry-dev/retry/bucket"
)

// KeyPrefix starts the key of every scope: retry:scope:NAME.
const KeyPrefix = "retry:scope:"

// KeyTTL is how long a scope's key lives after its last update. A bucket
// left alone is full again after capacity/RefillRate (50s) and an adaptive
// state is started over after 10 minutes idle, so an expired key loses
// nothing but its last-update time.
const KeyTTL = time.Hour

// Client is a connection pool to a store; open it with Dial, close it with
// Close. Connections are made on first use.
type Client struct {
	url *URL
	rdb goredis.UniversalClient
	// certFailure is the last certificate a TLS handshake refused.
	certFailure atomic.Pointer[CertError]
}

var quiet sync.Once

// Dial returns a client of the store at u. It does not connect.
func Dial(u *URL) *Client {
	quiet.Do(func() { goredis.SetLogger(discard{}) }) // go-redis logs to stderr otherwise
	c := &Client{url: u}
	c.rdb = u.client(&c.certFailure)
	return c
}

type discard struct{}

func (discard) Printf(context.Context, string, ...any) {}

// Close closes the client's connections.
func (c *Client) Close() error { return c.rdb.Close() }

// Conn returns the go-redis client of c, for the other keys retry keeps in
// the same store (the sequences of --state redis://…/KEY).
func (c *Client) Conn() goredis.UniversalClient { return c.rdb }

// URL returns the URL of the store c was dialled for.
func (c *Client) URL() *URL { return c.url }

// Redact returns err naming the store by its URL, the password removed.
func (c *Client) Redact(err error) error { return c.redact(err) }

// redact removes the password from an error of the client.
func (c *Client) redact(err error) error {
	if err == nil {
		return nil
	}
	err = c.certFailed(err)
	msg := oneLine(err.Error())
	if c.url.password != "" {
		msg = strings.ReplaceAll(msg, c.url.password, "xxxxx")
	}
	if c.url.sentinelPassword != "" {
		msg = strings.ReplaceAll(msg, c.url.sentinelPassword, "xxxxx")
	}
	return fmt.Errorf("%s: %s", c.url.redacted, msg)
}

// oneLine joins the lines of an error go-redis joined (one per sentinel
// tried) with "; ", each said once (a line that ends one kept already is
// left out).
func oneLine(msg string) string {
	if !strings.Contains(msg, "\n") {
		return msg
	}
	var kept []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || slices.ContainsFunc(kept, func(k string) bool { return strings.HasSuffix(k, l) }) {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "; ")
}

// The scripts are built (their SHA-1 computed) on first use, so a run
// without a Redis scope store never pays for them at start-up.
var (
	take   = LazyScript{Src: takeScript}
	give   = LazyScript{Src: giveScript}
	send   = LazyScript{Src: sendScript}
	record = LazyScript{Src: recordScript}
	info   = LazyScript{Src: infoScript}
)

// LazyScript is a server-side script built (its SHA-1 computed) on its
// first use (Get). A package-level LazyScript{Src: …} is static data: no
// code runs for it at start-up, where a sync.OnceValue closure would be
// built for each. The --state store (runner/durable/redisstore) keeps its
// scripts in it too.
type LazyScript struct {
	Src    string
	once   sync.Once
	script *goredis.Script
}

// Get returns the script.
func (l *LazyScript) Get() *goredis.Script {
	l.once.Do(func() { l.script = goredis.NewScript(l.Src) })
	return l.script
}

// Scope is a scope kept in Redis: a bucket.Store for bucket.NewShared.
type Scope struct {
	c        *Client
	name     string
	key      string
	capacity int
	reserve  int
	// clock, when set (SetClock, tests), replaces the server's TIME.
	clock func() time.Time
}

// Scope returns the scope name of the store; capacity ≤ 0 means
// bucket.DefaultCapacity. The name is checked by bucket.CheckName, as the
// file store checks it. Nothing is sent to the server.
func (c *Client) Scope(name string, capacity int) (*Scope, error) {
	if err := bucket.CheckName(name); err != nil {
		return nil, err
	}
	if capacity <= 0 {
		capacity = bucket.DefaultCapacity
	}
	return &Scope{c: c, name: name, key: KeyPrefix + name, capacity: capacity}, nil
}

// SetClock makes the scope's scripts use now() instead of the server's
// TIME, for tests that control time (nil: the server's TIME again). The
// time is sent with each call, so every process sharing the scope must use
// the same clock.
func (s *Scope) SetClock(now func() time.Time) { s.clock = now }

// SetReserve makes every Take of s leave n tokens in the bucket after
// paying (bucket.WaitReserve for --when-empty wait); 0 spends it all.
func (s *Scope) SetReserve(n int) { s.reserve = max(n, 0) }

func (s *Scope) run(ctx context.Context, sc *goredis.Script, arg any, more ...any) (any, error) {
	now := ""
	if s.clock != nil {
		now = strconv.FormatInt(s.clock().UnixMicro(), 10)
	}
	args := append([]any{KeyTTL.Milliseconds(), s.capacity, arg, now}, more...)
	v, err := s.c.Run(ctx, sc, []string{s.key}, args...)
	return v, s.c.redact(err)
}

// Take takes cost tokens from the scope's bucket, or returns a
// *bucket.EmptyError and takes nothing.
func (s *Scope) Take(ctx context.Context, cost int) error {
	v, err := s.run(ctx, take.Get(), cost, s.reserve)
	if err != nil {
		return err
	}
	r, ok := v.([]any)
	if !ok || len(r) != 3 {
		return s.c.redact(fmt.Errorf("unexpected reply %v", v))
	}
	if n, _ := r[0].(int64); n == 1 {
		return nil
	}
	held, _ := r[1].(int64)
	us, _ := strconv.ParseInt(fmt.Sprint(r[2]), 10, 64)
	return &bucket.EmptyError{Cost: cost, Reserve: s.reserve, Available: int(held), Capacity: s.capacity, Refill: time.Duration(us) * time.Microsecond}
}

// Give returns n tokens to the scope's bucket, capped at capacity.
func (s *Scope) Give(ctx context.Context, n int) error {
	_, err := s.run(ctx, give.Get(), n)
	return err
}

// Send takes a send token of the scope's adaptive limiter, or says how long
// until one is there.
func (s *Scope) Send(ctx context.Context) (bool, time.Duration, error) {
	v, err := s.run(ctx, send.Get(), 0)
	if err != nil {
		return false, 0, err
	}
	r, ok := v.([]any)
	if !ok || len(r) != 2 {
		return false, 0, s.c.redact(fmt.Errorf("unexpected reply %v", v))
	}
	if n, _ := r[0].(int64); n == 1 {
		return true, 0, nil
	}
	us, _ := strconv.ParseInt(fmt.Sprint(r[1]), 10, 64)
	return false, max(time.Duration(us)*time.Microsecond, time.Microsecond), nil
}

// Record records a response in the scope's adaptive limiter.
func (s *Scope) Record(ctx context.Context, throttled bool) error {
	flag := 0
	if throttled {
		flag = 1
	}
	_, err := s.run(ctx, record.Get(), flag)
	return err
}

// Info returns the scope's state, refilled at the server's time; an error
// wrapping bucket.ErrNoScope when the store has none.
func (s *Scope) Info(ctx context.Context) (bucket.ScopeInfo, error) {
	v, err := s.run(ctx, info.Get(), 0)
	if err != nil {
		return bucket.ScopeInfo{}, err
	}
	r, _ := v.([]any)
	if len(r) == 0 {
		return bucket.ScopeInfo{}, fmt.Errorf("%w %q in %s", bucket.ErrNoScope, s.name, s.c.url.redacted)
	}
	str := func(i int) string { x, _ := r[i].(string); return x }
	num := func(i int) float64 { f, _ := strconv.ParseFloat(str(i), 64); return f }
	micros := func(i int) time.Time {
		n, err := strconv.ParseInt(str(i), 10, 64)
		if err != nil || n <= 0 {
			return time.Time{}
		}
		return time.UnixMicro(n).UTC()
	}
	tokens, _ := strconv.Atoi(str(0))
	out := bucket.ScopeInfo{Name: s.name, Tokens: tokens, Capacity: s.capacity, Updated: micros(1)}
	if str(2) != "" {
		out.Adaptive = &bucket.AdaptiveInfo{Enabled: str(2) == "1", FillRate: num(3), MaxRate: num(4), MeasuredRate: num(5)}
		if out.Adaptive.Enabled {
			n, _ := strconv.ParseFloat(str(6), 64)
			out.Adaptive.LastThrottle = time.UnixMicro(int64(n)).UTC()
		}
	}
	return out, nil
}

// List returns the names of the scopes in the store, sorted.
func (c *Client) List(ctx context.Context) ([]string, error) {
	var (
		mu    sync.Mutex
		names []string
	)
	scan := func(ctx context.Context, node *goredis.Client) error {
		iter := node.Scan(ctx, 0, KeyPrefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			mu.Lock()
			names = append(names, strings.TrimPrefix(iter.Val(), KeyPrefix))
			mu.Unlock()
		}
		return iter.Err()
	}
	var err error
	switch rdb := c.rdb.(type) {
	case *goredis.ClusterClient:
		// A cluster's keys are spread over its primaries: scan each.
		err = rdb.ForEachMaster(ctx, scan)
	case *goredis.Client:
		err = scan(ctx, rdb)
	}
	if err != nil {
		return nil, c.redact(err)
	}
	slices.Sort(names)
	return names, nil
}

// Reset removes the scope's state; an error wrapping bucket.ErrNoScope
// when there is none.
func (c *Client) Reset(ctx context.Context, name string) error {
	if err := bucket.CheckName(name); err != nil {
		return err
	}
	n, err := c.rdb.Del(ctx, KeyPrefix+name).Result()
	if err != nil {
		return c.redact(err)
	}
	if n == 0 {
		return fmt.Errorf("%w %q in %s", bucket.ErrNoScope, name, c.url.redacted)
	}
	return nil
}

var _ bucket.Store = (*Scope)(nil)
