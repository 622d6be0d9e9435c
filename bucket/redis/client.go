package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync/atomic"
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

// client builds the go-redis client of the URL's topology; a TLS
// handshake's certificate refused is kept in failure.
func (u *URL) client(failure *atomic.Pointer[CertError]) goredis.UniversalClient {
	var dial func(ctx context.Context, network, addr string) (net.Conn, error)
	if u.TLS {
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			return u.dialTLS(ctx, network, addr, failure)
		}
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
// RETRY_REDIS_CACERT or the system's roots. A certificate refused, by
// either side, is a *CertError: at the handshake, or (TLS 1.3, where the
// server checks the client's certificate after the client is done) at the
// first read.
func (u *URL) dialTLS(ctx context.Context, network, addr string, failure *atomic.Pointer[CertError]) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if u.tlsConfig != nil {
		conf = u.tlsConfig.Clone()
	}
	conf.ServerName = host
	// The server asks for a client certificate during the handshake: say
	// so when none was given, as a refusal then shows as a connection
	// reset as often as a TLS alert (TLS 1.3 ends the client's handshake
	// before the server has checked its certificate).
	var asked bool
	certs := conf.Certificates
	conf.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		asked = true
		if len(certs) > 0 {
			return &certs[0], nil
		}
		return &tls.Certificate{}, nil
	}
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
		return nil, checkCert(failure, addr, err, asked && len(certs) == 0)
	}
	return certConn{c, failure, addr, asked && len(certs) == 0}, nil
}

// checkCert returns err, or the *CertError it is, which it also keeps in
// failure: go-redis does not always hand back the error of the
// connection's own read or write (a connection reset after the server's
// alert), and the client reports the certificate instead.
func checkCert(failure *atomic.Pointer[CertError], addr string, err error, noCert bool) error {
	ce := certError(addr, err, noCert)
	if ce == nil {
		return err
	}
	failure.Store(ce)
	return ce
}

// certConn is a TLS connection whose reads and writes say when the server
// refused the client's certificate.
type certConn struct {
	*tls.Conn
	failure *atomic.Pointer[CertError]
	addr    string
	// noCert: the server asked for a client certificate and got none.
	noCert bool
}

func (c certConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	return n, c.check(err)
}

func (c certConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	return n, c.check(err)
}

func (c certConn) check(err error) error {
	if err == nil {
		return nil
	}
	return checkCert(c.failure, c.addr, err, c.noCert)
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
		v, err := c.run(ctx, sc, keys, args...)
		err = c.certFailed(err)
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

// run runs the script once. On a cluster it goes straight to the primary
// that holds the keys' slot, as the cluster's slot map says: go-redis's
// ClusterClient would first fetch the whole COMMAND table from a node, once
// per process — 2.5 ms of that node's time, more than ten times the rest
// of a short-lived retry's calls (bench/fleet.sh). A MOVED or ASK answer
// (slots moving) sends the call through the ClusterClient, which follows
// it.
func (c *Client) run(ctx context.Context, sc *goredis.Script, keys []string, args ...any) (any, error) {
	cc, ok := c.rdb.(*goredis.ClusterClient)
	if !ok || len(keys) == 0 {
		return sc.Run(ctx, c.rdb, keys, args...).Result()
	}
	node, err := cc.MasterForKey(ctx, keys[0])
	if err != nil {
		return nil, err
	}
	v, err := sc.Run(ctx, node, keys, args...).Result()
	if _, moved := goredis.IsMovedError(err); moved {
		return sc.Run(ctx, cc, keys, args...).Result()
	}
	if _, ask := goredis.IsAskError(err); ask {
		return sc.Run(ctx, cc, keys, args...).Result()
	}
	return v, err
}

// certFailed returns the certificate refused on one of the client's
// connections, if there was one, instead of err.
func (c *Client) certFailed(err error) error {
	if err == nil || err == goredis.Nil {
		return err
	}
	if ce := c.certFailure.Load(); ce != nil {
		return ce
	}
	return err
}

// FailingOver reports whether err is what a client sees while a primary
// fails over: a server that refuses connections or drops them, or says it
// cannot serve now (CLUSTERDOWN, TRYAGAIN, MASTERDOWN, READONLY: a replica
// now, LOADING).
func FailingOver(err error) bool {
	var ce *CertError
	if errors.As(err, &ce) {
		return false
	}
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
