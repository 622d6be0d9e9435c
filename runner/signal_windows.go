package runner

import "syscall"

// SignalName names the console events Go's os/signal delivers on Windows
// by the signal they arrive as: Ctrl-C and Ctrl-Break as SIGINT, closing
// the console, logging off and shutting down as SIGTERM.
func SignalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT (Ctrl-C or Ctrl-Break)"
	case syscall.SIGTERM:
		return "SIGTERM (the console was closed, or the session ends)"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return sig.String()
}
