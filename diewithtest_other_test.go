//go:build unix && !linux

package main

import "syscall"

// dieWithTest: only Linux has a parent-death signal; elsewhere a process a
// script starts is stopped by its pid when the script ends.
func dieWithTest() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{}
}
