package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Timeout bounds every call to the server (dial, read, write): a store that
// does not answer must not hold up the command for long.
const Timeout = 2 * time.Second

// FailoverWait is how long a call to a cluster or through Sentinel keeps
// trying while a primary fails over (the node it knew refuses, or says the
// cluster is down, or that it is a replica now): long enough for a
// failover that Redis detects within its usual timeouts, short enough that
// a store that is down is reported. One server is tried once.
const FailoverWait = 10 * time.Second

// ReplicaWait bounds the wait for one replica to acknowledge a write that
// must survive a failover (Client.Replicated).
const ReplicaWait = time.Second

// client builds the go-redis client of the URL's topology.
func (u *URL) client() goredis.UniversalClient {
	var dial func(ctx context.Context, network, addr string) (net.Conn, error)
	if u.TLS {
		dial = u.dialTLS
	}
	switch u.Topology {
	case Cluster:
		return goredis.NewClusterClient(&goredis.ClusterOptions{
			Addrs: u.Addrs, Username: u.user, Password: u.password, Dialer: dial,
			DialTimeout: Timeout, ReadTimeout: Timeout, WriteTimeout: Timeout,
			MaxRedirects:  8, // MOVED and ASK while slots move
			DialerRetries: 1, DialerRetryTimeout: time.Millisecond,
			PoolSize: 2, Protocol: 2, DisableIdentity: true,
		})
	case Sentinel:
		return goredis.NewFailoverClient(&goredis.FailoverOptions{
			MasterName: u.Master, SentinelAddrs: u.Addrs, SentinelPassword: u.sentinelPassword,
			Username: u.user, Password: u.password, DB: u.DB, Dialer: dial,
			DialTimeout: Timeout, ReadTimeout: Timeout, WriteTimeout: Timeout,
			MaxRetries:    -1, // Client.Run tries again, asking the sentinels
			DialerRetries: 1, DialerRetryTimeout: time.Millisecond,
			PoolSize: 2, Protocol: 2, DisableIdentity: true,
		})
	}
	return goredis.NewClient(&goredis.Options{
		Addr: u.Addrs[0], Username: u.user, Password: u.password, DB: u.DB, Dialer: dial,
		DialTimeout: Timeout, ReadTimeout: Timeout, WriteTimeout: Timeout,
		MaxRetries:    -1, // one try: a failing store is reported, not hammered
		DialerRetries: 1, DialerRetryTimeout: time.Millisecond,
		PoolSize: 2, Protocol: 2, DisableIdentity: true,
	})
}

// dialTLS connects to addr and makes the TLS handshake, verifying the
// server's certificate for the host it dialled (each node of a cluster,
// each sentinel and the primary it names has its own name), against
// --redis-cacert or the system's roots.
func (u *URL) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if u.tlsConfig != nil {
		conf = u.tlsConfig.Clone()
	}
	conf.ServerName = host
	d := &net.Dialer{Timeout: Timeout, KeepAlive: 5 * time.Minute}
	raw, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	c := tls.Client(raw, conf)
	hctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if err := c.HandshakeContext(hctx); err != nil {
		raw.Close()
		return nil, err
	}
	return c, nil
}

// Run runs a server-side script on keys, which share one hash slot. On a
// cluster or through Sentinel, a call that meets a failover is tried again
// (the cluster's slots read again; the sentinels asked again) for at most
// FailoverWait: a script that ran but whose answer was lost may run twice,
// which the scripts allow (a lock taken twice by its holder, a write
// repeated, a bucket charged twice but never paid twice).
func (c *Client) Run(ctx context.Context, sc *goredis.Script, keys []string, args ...any) (any, error) {
	start := time.Now()
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		v, err := sc.Run(ctx, c.rdb, keys, args...).Result()
		if err == nil || err == goredis.Nil || c.url.Topology == Single || !FailingOver(err) {
			return v, err
		}
		if cc, ok := c.rdb.(*goredis.ClusterClient); ok {
			cc.ReloadState(ctx)
		}
		if time.Since(start)+wait > FailoverWait {
			return v, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, err
		case <-t.C:
		}
	}
}

// FailingOver reports whether err is what a client sees while a primary
// fails over: a server that refuses connections or drops them, or says it
// cannot serve now (CLUSTERDOWN, TRYAGAIN, MASTERDOWN, READONLY: a replica
// now, LOADING).
func FailingOver(err error) bool {
	if goredis.IsClusterDownError(err) || goredis.IsTryAgainError(err) || goredis.IsMasterDownError(err) ||
		goredis.IsReadOnlyError(err) || goredis.IsLoadingError(err) {
		return true
	}
	var op *net.OpError
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || (errors.As(err, &op) && op.Op == "dial")
}

// Replicated waits (at most ReplicaWait) until one replica of the primary
// that holds key has every write made so far, on a cluster or through
// Sentinel, so that a write survives the failover of its primary (Redis
// replicates asynchronously). It returns how many acknowledged; one
// server has none to wait for.
func (c *Client) Replicated(ctx context.Context, key string) int64 {
	var n int64
	switch rdb := c.rdb.(type) {
	case *goredis.ClusterClient:
		if m, err := rdb.MasterForKey(ctx, key); err == nil {
			n, _ = m.Wait(ctx, 1, ReplicaWait).Result()
		}
	case *goredis.Client:
		if c.url.Topology == Sentinel {
			n, _ = rdb.Wait(ctx, 1, ReplicaWait).Result()
		}
	}
	return n
}

// Untrusted reports whether err is a server certificate that TLS refused
// (signed by an authority retry does not trust, for another name, expired):
// a configuration to fix, not a store that is down.
func Untrusted(err error) bool {
	var ve *tls.CertificateVerificationError
	return errors.As(err, &ve)
}
