//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/retry-dev/retry/internal/testredis"
)

func init() {
	scriptCommands["redis"] = cmdRedis
	scriptCommands["chownnobody"] = cmdChownNobody
}

// redisServer is a redis-server started by a script.
type redisServer struct {
	cmd     *exec.Cmd
	done    chan struct{}
	port    int
	persist bool
}

// scriptRedis holds the servers of `redis start`, per script (scripts run
// in parallel; each script's commands run one at a time).
var scriptRedis sync.Map // *testscript.TestScript → map[string]*redisServer

// cmdRedis is `redis start NAME [persist]`, `redis stop NAME`, `redis kill
// NAME` or `redis restart NAME`.
//
// start runs redis-server on 127.0.0.1 with a free port and its own
// directory under $WORK (no persistence; with persist, an append-only file
// synced at every write), waits until it answers PING, and sets $NAME_URL
// (redis://127.0.0.1:PORT) and $NAME_ADDR. The server has the user cron,
// password t0psecret, beside the default user. The script's end stops it.
// stop shuts it down (SIGTERM) and waits; kill sends SIGKILL and waits, as
// a crash would; restart starts a stopped server again on the same port
// and directory. Scripts guard with
// [!exec:redis-server] skip 'redis-server is not installed (apt-get install redis-server)'.
func cmdRedis(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 || (len(args) == 3 && (args[0] != "start" || args[2] != "persist")) {
		ts.Fatalf("usage: redis start NAME [persist] | stop|kill|restart NAME")
	}
	verb, name := args[0], args[1]
	m, loaded := scriptRedis.LoadOrStore(ts, map[string]*redisServer{})
	if !loaded {
		ts.Defer(func() { scriptRedis.Delete(ts) })
	}
	servers := m.(map[string]*redisServer)
	switch verb {
	case "start":
		if servers[name] != nil {
			ts.Fatalf("redis %s already started", name)
		}
		s, addr := startRedis(ts, name, 0, len(args) == 3)
		servers[name] = s
		scriptSetenv(ts, name+"_URL", "redis://"+addr)
		scriptSetenv(ts, name+"_ADDR", addr)
	case "stop", "kill":
		s := servers[name]
		if s == nil {
			ts.Fatalf("no redis %s", name)
		}
		sig := syscall.SIGTERM
		if verb == "kill" {
			sig = syscall.SIGKILL
		}
		s.cmd.Process.Signal(sig)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			ts.Fatalf("redis %s did not exit within 30s of SIG%s", name, strings.ToUpper(verb))
		}
	case "restart":
		s := servers[name]
		if s == nil {
			ts.Fatalf("no redis %s", name)
		}
		select {
		case <-s.done:
		default:
			ts.Fatalf("redis %s is running: stop or kill it first", name)
		}
		servers[name], _ = startRedis(ts, name, s.port, s.persist)
	default:
		ts.Fatalf("usage: redis start NAME [persist] | stop|kill|restart NAME")
	}
}

// startRedis starts the server name on port (0: a free one).
func startRedis(ts *testscript.TestScript, name string, port int, persist bool) (*redisServer, string) {
	dir := ts.MkAbs(".redis-" + name)
	ts.Check(os.MkdirAll(dir, 0o700))
	var lastErr error
	want := port
	// A port picked free may be taken by the time redis binds it: try a
	// few.
	for range 5 {
		if port == 0 {
			port = freePort(ts)
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		aof := []string{"--appendonly", "no"}
		if persist {
			aof = []string{"--appendonly", "yes", "--appendfsync", "always"}
		}
		c := exec.Command("redis-server", append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--dir", dir, "--save", "", "--protected-mode", "yes",
			"--logfile", filepath.Join(dir, "redis.log")}, aof...)...)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		ts.Check(c.Start())
		s := &redisServer{cmd: c, done: make(chan struct{}), port: port, persist: persist}
		go func() { c.Wait(); close(s.done) }()
		if lastErr = testredis.Wait(addr, s.done, testredis.Ping); lastErr == nil {
			// A user with a password, for scripts that check the password
			// of a URL never shows: redis://cron:t0psecret@….
			ts.Check(testredis.Inline(addr, "ACL SETUSER cron on >t0psecret ~* &* +@all", "+OK"))
			ts.Defer(func() {
				syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				<-s.done
			})
			return s, addr
		}
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-s.done
		port = want // a fresh server tries another free port

	}
	log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
	ts.Fatalf("redis-server did not start: %v\n%s", lastErr, log)
	return nil, ""
}

// cmdChownNobody is `chownnobody PATH...`: it gives PATH to uid/gid 65534
// (nobody), to plant state another user owns. Scripts guard with [!root].
func cmdChownNobody(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: chownnobody PATH...")
	}
	for _, p := range args {
		ts.Check(os.Lchown(ts.MkAbs(p), 65534, 65534))
	}
}
