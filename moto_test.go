//go:build unix

package main

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["motoserver"] = cmdMotoServer
}

// cmdMotoServer is `motoserver NAME`: it starts moto_server (a local AWS API
// emulator) on 127.0.0.1, waits until it answers, and sets $NAME_URL for the
// rest of the script, with dummy AWS credentials in the environment. The
// script's end stops it. Scripts guard with [!exec:moto_server] skip.
func cmdMotoServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: motoserver NAME")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	c := exec.Command("moto_server", "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	c.Env = scriptEnv(ts)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ts.Check(c.Start())
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	ts.Defer(func() {
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(url + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-done:
			ts.Fatalf("moto_server exited before it answered")
		default:
		}
		if time.Now().After(deadline) {
			ts.Fatalf("moto_server did not answer on %s within a minute", url)
		}
		time.Sleep(50 * time.Millisecond)
	}
	scriptSetenv(ts, args[0]+"_URL", url)
	scriptSetenv(ts, "AWS_ACCESS_KEY_ID", "testing")
	scriptSetenv(ts, "AWS_SECRET_ACCESS_KEY", "testing")
	scriptSetenv(ts, "AWS_DEFAULT_REGION", "us-east-1")
	scriptSetenv(ts, "AWS_PAGER", "")
	scriptSetenv(ts, "AWS_CONFIG_FILE", "/dev/null")
	scriptSetenv(ts, "AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
}
