package main

import "syscall"

// dieWithTest makes a process the scripts start get SIGKILL when the test
// process dies first (Linux's parent-death signal).
func dieWithTest() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
