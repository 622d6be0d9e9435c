//go:build !linux

package redisstore

// machineID is "" where retry cannot name the machine: a lock is then only
// ever freed by its holder or its expiry.
func machineID() string { return "" }

func startTime(pid int) string { return "" }
