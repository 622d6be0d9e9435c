//go:build unix && !linux

package command

import "syscall"

// EnableSupervisor does nothing here: the supervisor that ends a run's
// processes when retry is killed with SIGKILL is Linux only (it finds them
// in /proc).
func EnableSupervisor() {}

// IsSupervisor is false: no supervisor is started here.
func IsSupervisor(args []string) bool { return false }

// Supervise is never called here.
func Supervise(id string) int { return 0 }

func supervisorEnabled() bool                                      { return false }
func superviseGroup(pgid int)                                      {}
func groupGone(pgid int)                                           {}
func endSupervision()                                              {}
func runProcesses(out []int, id string, groups map[int]bool) []int { return out }
func signalChecked(pid int, id string, groups map[int]bool, sig syscall.Signal) bool {
	return false
}
