package runner

import "syscall"

// SignalName names the console events Go's os/signal delivers on Windows
// by the signal they arrive as, as on Unix: Ctrl-C and Ctrl-Break are
// SIGINT; closing the console, logging off and shutting down SIGTERM.
func SignalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return sig.String()
}
