package cmd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestOneProcOnlyForRequests: a run of HTTP or TCP attempts switches the
// process to one processor, once, and a run of commands never does (it
// switches the subreaper on instead).
func TestOneProcOnlyForRequests(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	for _, c := range []struct {
		args               []string
		oneProc, subreaper int32
	}{
		{[]string{"run", "-n", "1", "--url", srv.URL}, 1, 0},
		{[]string{"run", "-n", "1", "--tcp", strings.TrimPrefix(srv.URL, "http://")}, 1, 0},
		{[]string{"run", "-n", "1", "--", "true"}, 0, 1},
	} {
		var oneProc, subreaper atomic.Int32
		proc := &process{oneProc: func() { oneProc.Add(1) }, adoptOrphans: func() error { subreaper.Add(1); return nil }}
		if status, _, stderr := runArgs(t, context.Background(), proc, c.args...); status != 0 {
			t.Fatalf("%v: exit status %d; stderr:\n%s", c.args, status, stderr)
		}
		if n, s := oneProc.Load(), subreaper.Load(); n != c.oneProc || s != c.subreaper {
			t.Errorf("%v: one processor %d times, subreaper %d times; want %d and %d", c.args, n, s, c.oneProc, c.subreaper)
		}
	}
}

// TestOneProcKeepsTheUsersGOMAXPROCS: a GOMAXPROCS the user set wins.
func TestOneProcKeepsTheUsersGOMAXPROCS(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Setenv("GOMAXPROCS", strconv.Itoa(before))
	oneProcForRequests()
	if n := runtime.GOMAXPROCS(0); n != before {
		runtime.GOMAXPROCS(before)
		t.Errorf("GOMAXPROCS %d after oneProcForRequests, want the user's %d", n, before)
	}
}
