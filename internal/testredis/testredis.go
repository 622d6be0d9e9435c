// Package testredis starts throwaway redis-servers for tests: on
// 127.0.0.1, on a free port, in the test's own directory, stopped by the
// pid the test started (never by name). It holds what the unit tests and
// the script commands share: a free loopback port, a one-line inline
// command, and waiting until a server answers.
package testredis

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// WaitLimit bounds the wait for a server to answer: generous, so that a
// loaded machine only makes it slower.
const WaitLimit = 30 * time.Second

// FreePort returns a TCP port free on 127.0.0.1 now; another process may
// take it before the server binds it.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Inline sends one inline command to the server at addr and checks that
// its one-line answer is want.
func Inline(addr, command, want string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(time.Second)); err != nil {
		return err
	}
	if _, err := c.Write([]byte(command + "\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != want+"\r\n" {
		return fmt.Errorf("%s answered %q", strings.Fields(command)[0], line)
	}
	return nil
}

// Ping checks that the server at addr, plain and without a password,
// answers PING.
func Ping(addr string) error { return Inline(addr, "PING", "+PONG") }

// Wait polls ready(addr) until it returns nil and returns nil; it returns
// an error when the server exits first (done is closed) or ready still
// fails after WaitLimit.
func Wait(addr string, done <-chan struct{}, ready func(addr string) error) error {
	deadline := time.Now().Add(WaitLimit)
	for {
		err := ready(addr)
		if err == nil {
			return nil
		} else if time.Now().After(deadline) {
			return err
		}
		select {
		case <-done:
			return fmt.Errorf("exited")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Start runs a redis-server for t on 127.0.0.1, on a free port, in a
// temporary directory of t's, with no persistence and args after those,
// waits until it answers PING, and returns its address (127.0.0.1:PORT).
// The server is killed, by its pid, when t ends. Where redis-server is not
// installed, Start skips t, saying that it skips what.
func Start(t testing.TB, what string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (apt-get install redis-server): skipping " + what)
	}
	dir := t.TempDir()
	var lastErr error
	for range 5 { // a port picked free may be taken by the time redis binds it
		port, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		c := exec.Command("redis-server", append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--dir", dir, "--save", "", "--appendonly", "no"}, args...)...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = c.Wait(); close(done) }()       // its status says nothing: the test ends it
		stop := func() { _ = c.Process.Kill(); <-done } // (already gone when it exited by itself)
		if lastErr = Wait(addr, done, Ping); lastErr == nil {
			t.Cleanup(stop)
			return addr
		}
		stop()
	}
	t.Fatalf("redis-server did not start: %v", lastErr)
	return ""
}
