//go:build unix

package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/retry-dev/retry/internal/testredis"
)

// The Redis deployments people run, started by scripts on 127.0.0.1 on free
// ports: a cluster of three primaries and three replicas, and a primary with
// a replica behind three sentinels. Each server is stopped by its pid when
// the script ends. Failovers are waited for by what the servers say (their
// roles, the cluster's state), never by a guessed duration.

func init() {
	scriptCommands["rediscluster"] = cmdRedisCluster
	scriptCommands["redissentinel"] = cmdRedisSentinel
	scriptPrograms["stormstep"] = stormstepMain
	goredis.SetLogger(quietLog{}) // the test's clients: go-redis logs to stderr otherwise
}

type quietLog struct{}

func (quietLog) Printf(context.Context, string, ...any) {}

// topoWait bounds every wait for a topology's state: generous, so that a
// loaded machine only makes it slower.
const topoWait = 2 * time.Minute

// node is one redis-server or redis-sentinel of a topology.
type node struct {
	cmd  *exec.Cmd
	done chan struct{}
	addr string
}

func (n *node) alive() bool {
	select {
	case <-n.done:
		return false
	default:
		return true
	}
}

// topologies holds the nodes of each script's topologies, by NAME.
var topologies sync.Map // *testscript.TestScript → map[string][]*node

func topoNodes(ts *testscript.TestScript) map[string][]*node {
	m, loaded := topologies.LoadOrStore(ts, map[string][]*node{})
	if !loaded {
		ts.Defer(func() { topologies.Delete(ts) })
	}
	return m.(map[string][]*node)
}

// freePort returns a port free on 127.0.0.1 now.
func freePort(ts *testscript.TestScript) int {
	port, err := testredis.FreePort()
	ts.Check(err)
	return port
}

// startNode runs prog (redis-server or redis-sentinel) with a config file
// of lines in dir, on a free port, and waits until it answers PING; it is
// killed (SIGKILL, by its pid) when the script ends.
func startNode(ts *testscript.TestScript, prog, dir string, conf ...string) *node {
	ts.Check(os.MkdirAll(dir, 0o700))
	var lastErr error
	for range 5 { // a port picked free may be taken by the time it binds
		port := freePort(ts)
		addr := "127.0.0.1:" + strconv.Itoa(port)
		lines := []string{"bind 127.0.0.1", "port " + strconv.Itoa(port), "dir " + dir, "logfile " + filepath.Join(dir, "log")}
		if prog == "redis-server" {
			lines = append(lines, "save \"\"", "appendonly no")
		}
		wait := testredis.Ping
		for _, l := range conf {
			// "tls CA CERT KEY": TLS only, between the nodes too.
			if f := strings.Fields(l); len(f) == 4 && f[0] == "tls" {
				lines[1] = "port 0"
				lines = append(lines, "tls-port "+strconv.Itoa(port), "tls-ca-cert-file "+f[1], "tls-cert-file "+f[2], "tls-key-file "+f[3],
					"tls-auth-clients no", "tls-replication yes")
				if prog == "redis-server" {
					lines = append(lines, "tls-cluster yes")
				}
				pem, err := os.ReadFile(f[1])
				ts.Check(err)
				pool := x509.NewCertPool()
				pool.AppendCertsFromPEM(pem)
				tlsConfs.Store(addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
				wait = answers
				continue
			}
			lines = append(lines, l)
		}
		file := filepath.Join(dir, "node.conf")
		ts.Check(os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
		c := exec.Command(prog, file)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		ts.Check(c.Start())
		n := &node{cmd: c, done: make(chan struct{}), addr: addr}
		go func() { c.Wait(); close(n.done) }()
		for _, l := range conf {
			if pw, ok := strings.CutPrefix(l, "requirepass "); ok {
				passwords.Store(addr, pw)
				wait = answers
			}
		}
		if lastErr = testredis.Wait(addr, n.done, wait); lastErr == nil {
			ts.Defer(func() {
				syscall.Kill(c.Process.Pid, syscall.SIGKILL)
				<-n.done
			})
			return n
		}
		syscall.Kill(c.Process.Pid, syscall.SIGKILL)
		<-n.done
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	ts.Fatalf("%s did not start: %v\n%s", prog, lastErr, log)
	return nil
}

// passwords holds the password of the servers of topologies started with
// one, by address, for do; tlsConfs the TLS configuration of those that
// speak TLS only.
var passwords, tlsConfs sync.Map // string → string, *tls.Config

// answers checks that the server at addr, which has a password or speaks
// TLS only, answers PING.
func answers(addr string) error {
	_, err := do(addr, "ping")
	return err
}

// do sends one command to the server at addr (with its password, if it has
// one).
func do(addr string, args ...any) (any, error) {
	pw, _ := passwords.Load(addr)
	pass, _ := pw.(string)
	tc, _ := tlsConfs.Load(addr)
	conf, _ := tc.(*tls.Config)
	c := goredis.NewClient(&goredis.Options{Addr: addr, Password: pass, TLSConfig: conf, Protocol: 2, MaxRetries: -1, DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second})
	defer c.Close()
	return c.Do(context.Background(), args...).Result()
}

// until polls ok until it holds, or fails the script after topoWait.
func until(ts *testscript.TestScript, what string, ok func() bool) {
	deadline := time.Now().Add(topoWait)
	for !ok() {
		if time.Now().After(deadline) {
			ts.Fatalf("%s: not within %v", what, topoWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// info returns the fields of INFO section (or CLUSTER INFO with
// section "cluster-info") of the server at addr.
func info(addr, section string) map[string]string {
	var v any
	var err error
	if section == "cluster-info" {
		v, err = do(addr, "cluster", "info")
	} else {
		v, err = do(addr, "info", section)
	}
	f := map[string]string{}
	if err != nil {
		return f
	}
	s, _ := v.(string)
	for _, line := range strings.Split(s, "\n") {
		if k, val, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			f[k] = val
		}
	}
	return f
}

// cmdRedisCluster is `rediscluster start NAME`, `rediscluster failover NAME
// KEY`, `rediscluster kill NAME KEY` or `rediscluster acl NAME ARGS...`
// (ACL SETUSER ARGS on every node). `start NAME tls` makes a cluster that
// speaks TLS only, clients and nodes alike, its certificates made by the
// test: $NAME_URL is rediss+cluster://…, $NAME_CA the CA's file.
//
// start runs six redis-server --cluster-enabled yes, joins them with
// redis-cli --cluster create --cluster-replicas 1 (three primaries, each
// with a replica), waits until every node says the cluster is ok, and sets
// $NAME_URL (redis+cluster://ADDR,ADDR: two of the nodes; the client finds
// the rest) and $NAME_ADDRS (ADDR,ADDR). failover makes the replica of the primary that holds KEY's
// slot take over (CLUSTER FAILOVER: the replica catches up first), and
// waits until the roles have switched and every node says ok. kill sends
// SIGKILL to the primary that holds KEY's slot and waits until its replica
// is the primary of the slot and every live node says ok.
func cmdRedisCluster(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || (args[0] == "start" && (len(args) > 3 || (len(args) == 3 && args[2] != "tls"))) || (args[0] != "start" && len(args) < 3) {
		ts.Fatalf("usage: rediscluster start NAME [tls] | failover|kill NAME KEY | acl NAME ACL-SETUSER-ARGS...")
	}
	for _, p := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(p); err != nil {
			ts.Fatalf("%s is not installed: guard the script with [!exec:%s] skip", p, p)
		}
	}
	verb, name := args[0], args[1]
	nodes := topoNodes(ts)
	if verb == "start" {
		conf := []string{"cluster-enabled yes", "cluster-config-file nodes.conf", "cluster-node-timeout 2000",
			"cluster-replica-validity-factor 0", "cluster-allow-replica-migration no"}
		var cli []string
		scheme := "redis+cluster://"
		if len(args) == 3 { // TLS: certificates made here, one for 127.0.0.1 that every node shows
			ca, cert, key := makeTLSFiles(ts, ts.MkAbs(".cluster-"+name+"/tls"))
			conf = append(conf, "tls "+ca+" "+cert+" "+key)
			cli = []string{"--tls", "--cacert", ca}
			scheme = "rediss+cluster://"
			scriptSetenv(ts, name+"_CA", ca)
		}
		var all []*node
		var addrs []string
		for i := range 6 {
			n := startNode(ts, "redis-server", ts.MkAbs(fmt.Sprintf(".cluster-%s/%d", name, i)), conf...)
			all = append(all, n)
			addrs = append(addrs, n.addr)
		}
		out, err := exec.Command("redis-cli", append(append(append(cli, "--cluster", "create"), addrs...), "--cluster-replicas", "1", "--cluster-yes")...).CombinedOutput()
		if err != nil {
			ts.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
		}
		nodes[name] = all
		clusterOK(ts, all, true)
		scriptSetenv(ts, name+"_URL", scheme+addrs[0]+","+addrs[1])
		scriptSetenv(ts, name+"_ADDRS", addrs[0]+","+addrs[1])
		return
	}
	all := nodes[name]
	if all == nil {
		ts.Fatalf("no cluster %s", name)
	}
	if verb == "acl" {
		// ACL SETUSER on every node: a cluster does not share its users.
		for _, n := range all {
			a := []any{"acl", "setuser"}
			for _, w := range args[2:] {
				a = append(a, w)
			}
			_, err := do(n.addr, a...)
			ts.Check(err)
		}
		return
	}
	var live *node
	for _, n := range all {
		if n.alive() {
			live = n
			break
		}
	}
	v, err := do(live.addr, "cluster", "keyslot", args[2])
	ts.Check(err)
	slot := v.(int64)
	primary, replica := slotNodes(ts, live.addr, slot)
	if primary == "" || replica == "" {
		v, _ := do(live.addr, "cluster", "slots")
		ts.Fatalf("slot %d: no primary and replica in CLUSTER SLOTS: %v", slot, v)
	}
	switch verb {
	case "failover":
		_, err := do(replica, "cluster", "failover")
		ts.Check(err)
		until(ts, "the replica "+replica+" takes over slot "+strconv.FormatInt(slot, 10), func() bool {
			return info(replica, "replication")["role"] == "master" && info(primary, "replication")["role"] == "slave" &&
				info(primary, "replication")["master_link_status"] == "up"
		})
	case "kill":
		for _, n := range all {
			if n.addr == primary {
				n.cmd.Process.Signal(syscall.SIGKILL)
				<-n.done
			}
		}
		until(ts, "the replica "+replica+" takes over slot "+strconv.FormatInt(slot, 10), func() bool {
			return info(replica, "replication")["role"] == "master"
		})
	default:
		ts.Fatalf("usage: rediscluster start NAME | failover|kill NAME KEY")
	}
	clusterOK(ts, all, verb == "failover")
	until(ts, "every node names "+replica+" as the primary of slot "+strconv.FormatInt(slot, 10), func() bool {
		for _, n := range all {
			if n.alive() {
				if p, _ := slotNodes(ts, n.addr, slot); p != replica {
					return false
				}
			}
		}
		return true
	})
}

// clusterOK waits until every live node says cluster_state:ok and knows
// every slot, and, with replicas, that every primary has a replica in
// sync.
func clusterOK(ts *testscript.TestScript, all []*node, replicas bool) {
	until(ts, "every node of the cluster says ok", func() bool {
		for _, n := range all {
			if !n.alive() {
				continue
			}
			f := info(n.addr, "cluster-info")
			if f["cluster_state"] != "ok" || f["cluster_slots_ok"] != "16384" {
				return false
			}
			if !replicas {
				continue
			}
			if r := info(n.addr, "replication"); r["role"] == "slave" && r["master_link_status"] != "up" {
				return false
			}
			v, err := do(n.addr, "cluster", "slots")
			if err != nil {
				return false
			}
			for _, row := range v.([]any) {
				if len(row.([]any)) < 4 {
					return false
				}
			}
		}
		return true
	})
}

// slotNodes returns the primary of slot as the node at addr sees it (CLUSTER
// SHARDS would say the same; CLUSTER SLOTS is in every version), and one of
// its replicas.
func slotNodes(ts *testscript.TestScript, addr string, slot int64) (primary, replica string) {
	v, err := do(addr, "cluster", "slots")
	if err != nil {
		return "", ""
	}
	for _, r := range v.([]any) {
		row := r.([]any)
		if slot < row[0].(int64) || slot > row[1].(int64) {
			continue
		}
		hp := func(x any) string {
			n := x.([]any)
			return net.JoinHostPort(n[0].(string), strconv.FormatInt(n[1].(int64), 10))
		}
		primary = hp(row[2])
		if len(row) > 3 {
			replica = hp(row[3])
		}
	}
	return primary, replica
}

// cmdRedisSentinel is `redissentinel start NAME` or `redissentinel kill
// NAME`.
//
// start runs a primary and its replica (redis-server) and three
// redis-sentinel watching the primary as "main" (quorum 2, down after 1s),
// waits until every sentinel knows the replica and the two other
// sentinels, and sets $NAME_URL (redis+sentinel://S1,S2,S3/main). kill
// sends SIGKILL to the current primary and waits until the sentinels name
// the replica as the primary and it says it is one.
func cmdRedisSentinel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 || (len(args) == 3 && (args[0] != "start" || (args[2] != "auth" && args[2] != "tls"))) {
		ts.Fatalf("usage: redissentinel start NAME [auth|tls] | kill NAME")
	}
	for _, p := range []string{"redis-server", "redis-sentinel"} {
		if _, err := exec.LookPath(p); err != nil {
			ts.Fatalf("%s is not installed: guard the script with [!exec:%s] skip", p, p)
		}
	}
	verb, name := args[0], args[1]
	nodes := topoNodes(ts)
	dir := func(what string) string { return ts.MkAbs(".sentinel-" + name + "/" + what) }
	switch verb {
	case "start":
		var data, watch []string
		scheme := "redis+sentinel://"
		switch {
		case len(args) == 3 && args[2] == "auth":
			data = []string{"requirepass t0psecret", "masterauth t0psecret"}
			watch = []string{"requirepass s3ntinel", "sentinel auth-pass main t0psecret"}
		case len(args) == 3: // TLS only, certificates made here: one for 127.0.0.1 that every node shows
			ca, cert, key := makeTLSFiles(ts, dir("tls"))
			data = []string{"tls " + ca + " " + cert + " " + key}
			watch = data
			scheme = "rediss+sentinel://"
			scriptSetenv(ts, name+"_CA", ca)
		}
		primary := startNode(ts, "redis-server", dir("primary"), data...)
		host, port, _ := net.SplitHostPort(primary.addr)
		replica := startNode(ts, "redis-server", dir("replica"), append([]string{"replicaof " + host + " " + port}, data...)...)
		until(ts, "the replica is in sync", func() bool {
			return info(replica.addr, "replication")["master_link_status"] == "up"
		})
		all := []*node{primary, replica}
		var sentinels []string
		for i := range 3 {
			s := startNode(ts, "redis-sentinel", dir(fmt.Sprintf("sentinel-%d", i)), append([]string{
				"sentinel monitor main " + host + " " + port + " 2", "sentinel down-after-milliseconds main 1000",
				"sentinel failover-timeout main 10000", "sentinel parallel-syncs main 1"}, watch...)...)
			all = append(all, s)
			sentinels = append(sentinels, s.addr)
		}
		until(ts, "every sentinel knows the replica and the other sentinels", func() bool {
			for _, s := range sentinels {
				f := sentinelMaster(s)
				if f["num-slaves"] != "1" || f["num-other-sentinels"] != "2" {
					return false
				}
			}
			return true
		})
		nodes[name] = all
		scriptSetenv(ts, name+"_URL", scheme+strings.Join(sentinels, ",")+"/main")
	case "kill":
		all := nodes[name]
		if all == nil {
			ts.Fatalf("no sentinel topology %s", name)
		}
		v, err := do(all[2].addr, "sentinel", "get-master-addr-by-name", "main")
		ts.Check(err)
		a := v.([]any)
		old := net.JoinHostPort(a[0].(string), a[1].(string))
		var next string
		for _, n := range all[:2] {
			if n.addr == old {
				n.cmd.Process.Signal(syscall.SIGKILL)
				<-n.done
			} else {
				next = n.addr
			}
		}
		until(ts, "the sentinels name "+next+" as the primary", func() bool {
			for _, s := range all[2:] {
				v, err := do(s.addr, "sentinel", "get-master-addr-by-name", "main")
				if err != nil {
					return false
				}
				a := v.([]any)
				if net.JoinHostPort(a[0].(string), a[1].(string)) != next {
					return false
				}
			}
			return info(next, "replication")["role"] == "master"
		})
	default:
		ts.Fatalf("usage: redissentinel start|kill NAME")
	}
}

// sentinelMaster returns SENTINEL MASTER main as fields.
func sentinelMaster(addr string) map[string]string {
	f := map[string]string{}
	v, err := do(addr, "sentinel", "master", "main")
	if err != nil {
		return f
	}
	list, _ := v.([]any)
	for i := 0; i+1 < len(list); i += 2 {
		f[fmt.Sprint(list[i])] = fmt.Sprint(list[i+1])
	}
	return f
}

// stormstepMain is `stormstep LOG CREATE GATE`: an attempt of a storm. It
// appends its RETRY_ATTEMPT to LOG (one line; appends of one line by many
// processes do not mix); on attempt 2 it creates CREATE and waits (at most
// two minutes) until GATE exists. It exits 1.
func stormstepMain() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: stormstep LOG CREATE GATE")
		os.Exit(2)
	}
	f, err := os.OpenFile(os.Args[1], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.WriteString(os.Getenv("RETRY_ATTEMPT") + "\n")
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if os.Getenv("RETRY_ATTEMPT") == "2" {
		if err := os.WriteFile(os.Args[2], nil, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		deadline := time.Now().Add(topoWait)
		for !fileExists(os.Args[3]) {
			if time.Now().After(deadline) {
				fmt.Fprintf(os.Stderr, "stormstep: %s did not appear\n", os.Args[3])
				os.Exit(2)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	os.Exit(1)
}
