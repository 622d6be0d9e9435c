package redisstore

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// holder is who holds a lock, as its value says: "v1 TOKEN MACHINE PID
// START". MACHINE names the kernel and PID namespace the holder ran in
// (empty where retry cannot tell), START the process's start time in clock
// ticks since boot, so that a PID reused since is not taken for the holder.
type holder struct {
	token, machine string
	pid            int
	start          string
}

func (h holder) value(token string) string {
	return fmt.Sprintf("v1 %s %s %d %s", token, orDash(h.machine), h.pid, orDash(h.start))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func parseHolder(v string) (holder, bool) {
	f := strings.Fields(v)
	if len(f) != 5 || f[0] != "v1" {
		return holder{}, false
	}
	pid, err := strconv.Atoi(f[3])
	if err != nil || pid <= 0 {
		return holder{}, false
	}
	h := holder{token: f[1], machine: f[2], pid: pid, start: f[4]}
	if h.machine == "-" {
		h.machine = ""
	}
	if h.start == "-" {
		h.start = ""
	}
	return h, true
}

// self is this process as a holder.
func self() holder {
	pid := os.Getpid()
	return holder{machine: machineID(), pid: pid, start: startTime(pid)}
}

// diedHere reports whether h ran on the machine (and PID namespace) of me
// and its process is gone: it can no longer use the lock. A holder of
// another machine, or of one retry cannot name, is never judged: its lock
// lasts until it expires.
func (h holder) diedHere(me holder) bool {
	if h.machine == "" || h.machine != me.machine || h.start == "" {
		return false
	}
	return startTime(h.pid) != h.start // "" when the process is gone
}
