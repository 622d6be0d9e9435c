package redisstore

import (
	"os"
	"strconv"
	"strings"
)

// machineID names this kernel's boot and this process's PID namespace:
// PIDs of a holder with the same name are PIDs retry can look up.
func machineID() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	ns = strings.TrimSuffix(strings.TrimPrefix(ns, "pid:["), "]")
	if _, err := strconv.ParseUint(ns, 10, 64); err != nil {
		return ""
	}
	return strings.TrimSpace(string(boot)) + "/" + ns
}

// startTime is the start time of process pid (field 22 of
// /proc/PID/stat), "" when there is no such process.
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold blanks
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19] // field 22: fields 3… follow the name
}
