//go:build unix

package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/retry-dev/retry/internal/testredis"
)

// A redis-server that speaks TLS only, with certificates made at test time
// by Go's crypto: a private CA, the server's certificate for 127.0.0.1
// signed by it, a client certificate signed by it, and another CA that
// signed nothing the server shows.

func init() { scriptCommands["redistls"] = cmdRedisTLS }

// cmdRedisTLS is `redistls start NAME [mtls]`: it makes the certificates
// under $WORK/.tls-NAME, runs redis-server on 127.0.0.1 with --port 0 and
// --tls-port on a free port (with mtls, tls-auth-clients yes: a client
// must show a certificate of the CA), waits until it answers PING over TLS,
// and sets $NAME_URL (rediss://127.0.0.1:PORT), $NAME_PORT, $NAME_CA,
// $NAME_CERT, $NAME_KEY (the client's) and $NAME_OTHERCA. The server has
// the user cron, password t0psecret. The script's end kills it by its pid.
func cmdRedisTLS(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 || args[0] != "start" || (len(args) == 3 && args[2] != "mtls") {
		ts.Fatalf("usage: redistls start NAME [mtls]")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		ts.Fatalf("redis-server is not installed: guard the script with [!exec:redis-server] skip")
	}
	name, mtls := args[1], len(args) == 3
	dir := ts.MkAbs(".tls-" + name)
	ts.Check(os.MkdirAll(dir, 0o700))
	file := func(f string) string { return filepath.Join(dir, f) }

	ca, caKey := makeCert(ts, "retry test CA", nil, nil, nil, true)
	other, _ := makeCert(ts, "another CA", nil, nil, nil, true)
	server, serverKey := makeCert(ts, "redis", ca, caKey, []net.IP{net.ParseIP("127.0.0.1")}, false)
	client, clientKey := makeCert(ts, "retry", ca, caKey, nil, false)
	writePEM(ts, file("ca.pem"), "CERTIFICATE", ca.Raw)
	writePEM(ts, file("other-ca.pem"), "CERTIFICATE", other.Raw)
	writePEM(ts, file("server.pem"), "CERTIFICATE", server.Raw)
	writeKey(ts, file("server.key"), serverKey)
	writePEM(ts, file("client.pem"), "CERTIFICATE", client.Raw)
	writeKey(ts, file("client.key"), clientKey)

	pool := x509.NewCertPool()
	pool.AddCert(ca)
	pair, err := tls.LoadX509KeyPair(file("client.pem"), file("client.key"))
	ts.Check(err)
	conf := &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, ServerName: "127.0.0.1"}

	auth := "no"
	if mtls {
		auth = "yes"
	}
	var lastErr error
	for range 5 { // a port picked free may be taken by the time it binds
		port := freePort(ts)
		addr := "127.0.0.1:" + strconv.Itoa(port)
		c := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", "0", "--tls-port", strconv.Itoa(port),
			"--tls-cert-file", file("server.pem"), "--tls-key-file", file("server.key"),
			"--tls-ca-cert-file", file("ca.pem"), "--tls-auth-clients", auth,
			"--dir", dir, "--save", "", "--appendonly", "no", "--logfile", file("redis.log"))
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		ts.Check(c.Start())
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		if lastErr = waitTLS(addr, conf, done); lastErr == nil {
			ts.Defer(func() {
				syscall.Kill(c.Process.Pid, syscall.SIGKILL)
				<-done
			})
			scriptSetenv(ts, name+"_URL", "rediss://"+addr)
			scriptSetenv(ts, name+"_PORT", strconv.Itoa(port))
			scriptSetenv(ts, name+"_CA", file("ca.pem"))
			scriptSetenv(ts, name+"_OTHERCA", file("other-ca.pem"))
			scriptSetenv(ts, name+"_CERT", file("client.pem"))
			scriptSetenv(ts, name+"_KEY", file("client.key"))
			return
		}
		syscall.Kill(c.Process.Pid, syscall.SIGKILL)
		<-done
	}
	log, _ := os.ReadFile(file("redis.log"))
	ts.Fatalf("redis-server --tls-port did not start: %v\n%s", lastErr, log)
}

// makeTLSFiles makes a CA and a certificate for 127.0.0.1 it signed, in
// dir, and returns the files of the CA, the certificate and its key.
func makeTLSFiles(ts *testscript.TestScript, dir string) (ca, cert, key string) {
	ts.Check(os.MkdirAll(dir, 0o700))
	caCert, caKey := makeCert(ts, "retry test CA", nil, nil, nil, true)
	c, k := makeCert(ts, "redis", caCert, caKey, []net.IP{net.ParseIP("127.0.0.1")}, false)
	ca, cert, key = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "node.pem"), filepath.Join(dir, "node.key")
	writePEM(ts, ca, "CERTIFICATE", caCert.Raw)
	writePEM(ts, cert, "CERTIFICATE", c.Raw)
	writeKey(ts, key, k)
	return ca, cert, key
}

// waitTLS waits (at most 30s) until the server at addr answers PING over
// TLS, then adds the user cron.
func waitTLS(addr string, conf *tls.Config, done chan struct{}) error {
	c := goredis.NewClient(&goredis.Options{Addr: addr, TLSConfig: conf, Protocol: 2, MaxRetries: -1, DialTimeout: 2 * time.Second})
	defer c.Close()
	ping := func(string) error { return c.Ping(context.Background()).Err() }
	if err := testredis.Wait(addr, done, ping); err != nil {
		return err
	}
	return c.Do(context.Background(), "ACL", "SETUSER", "cron", "on", ">t0psecret", "~*", "&*", "+@all").Err()
}

// makeCert makes a certificate for cn, valid for a day, signed by parent
// (self-signed when nil), for ips; a CA when ca.
func makeCert(ts *testscript.TestScript, cn string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, ips []net.IP, ca bool) (*x509.Certificate, *ecdsa.PrivateKey) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ts.Check(err)
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	ts.Check(err)
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  ips,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	if ca {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		tmpl.ExtKeyUsage = nil
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	ts.Check(err)
	cert, err := x509.ParseCertificate(der)
	ts.Check(err)
	return cert, key
}

func writePEM(ts *testscript.TestScript, path, typ string, der []byte) {
	ts.Check(os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
}

func writeKey(ts *testscript.TestScript, path string, key *ecdsa.PrivateKey) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	ts.Check(err)
	writePEM(ts, path, "PRIVATE KEY", der)
}

// TestACLRuleDocumented holds the ACL rule docs/redis.md gives users and
// the rule of the user state_redis_acl runs everything as the same, and
// state_redis_cluster_acl's that rule plus what a cluster needs.
func TestACLRuleDocumented(t *testing.T) {
	script, err := os.ReadFile("testdata/script/state_redis_acl.txtar")
	if err != nil {
		t.Fatal(err)
	}
	_, rule, ok := strings.Cut(string(script), "ACL SETUSER retry reset on >s3cret ")
	if !ok {
		t.Fatal("state_redis_acl.txtar: no ACL SETUSER retry reset on >s3cret RULE")
	}
	rule, _, _ = strings.Cut(rule, "\n")
	docs, err := os.ReadFile("docs/redis.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "ACL SETUSER retry on >PASSWORD " + rule + "\n"
	if !strings.Contains(string(docs), want) {
		t.Errorf("docs/redis.md does not give the rule state_redis_acl tests: want the line\n%s", want)
	}
	cluster, err := os.ReadFile("testdata/script/state_redis_cluster_acl.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cluster), "rediscluster acl C retry reset on >s3cret "+rule+" +cluster|slots\n") {
		t.Errorf("state_redis_cluster_acl.txtar does not test the rule of state_redis_acl plus +cluster|slots")
	}
	if !strings.Contains(string(docs), "add `+cluster|slots`") {
		t.Errorf("docs/redis.md does not say a cluster's user needs +cluster|slots")
	}
}
