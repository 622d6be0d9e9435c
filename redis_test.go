package main

import (
	"bufio"
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

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["redis"] = cmdRedis
	scriptCommands["chownnobody"] = cmdChownNobody
}

// redisServer is a redis-server started by a script.
type redisServer struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// scriptRedis holds the servers of `redis start`, per script (scripts run
// in parallel; each script's commands run one at a time).
var scriptRedis sync.Map // *testscript.TestScript → map[string]*redisServer

// cmdRedis is `redis start NAME`, `redis stop NAME` or `redis kill NAME`.
//
// start runs redis-server on 127.0.0.1 with a free port and its own
// directory under $WORK (no persistence), waits until it answers PING, and
// sets $NAME_URL (redis://127.0.0.1:PORT) and $NAME_ADDR. The script's end
// stops it. stop shuts it down (SIGTERM) and waits; kill sends SIGKILL and
// waits, as a crash would. Scripts guard with
// [!exec:redis-server] skip 'redis-server is not installed (apt-get install redis-server)'.
func cmdRedis(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: redis start|stop|kill NAME")
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
		s, addr := startRedis(ts, name)
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
	default:
		ts.Fatalf("usage: redis start|stop|kill NAME")
	}
}

func startRedis(ts *testscript.TestScript, name string) (*redisServer, string) {
	dir := ts.MkAbs(".redis-" + name)
	ts.Check(os.MkdirAll(dir, 0o700))
	var lastErr error
	// A port picked free may be taken by the time redis binds it: try a
	// few.
	for range 5 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		addr := "127.0.0.1:" + strconv.Itoa(port)
		c := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--dir", dir, "--save", "", "--appendonly", "no", "--protected-mode", "yes",
			"--logfile", filepath.Join(dir, "redis.log"))
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		ts.Check(c.Start())
		s := &redisServer{cmd: c, done: make(chan struct{})}
		go func() { c.Wait(); close(s.done) }()
		if lastErr = waitRedis(addr, s.done); lastErr == nil {
			ts.Defer(func() {
				syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				<-s.done
			})
			return s, addr
		}
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
	log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
	ts.Fatalf("redis-server did not start: %v\n%s", lastErr, log)
	return nil, ""
}

// waitRedis waits (at most 30s) until the server at addr answers PING.
func waitRedis(addr string, done chan struct{}) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := ping(addr); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			return err
		}
		select {
		case <-done:
			return fmt.Errorf("redis-server exited")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
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
