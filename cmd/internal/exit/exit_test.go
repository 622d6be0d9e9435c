package exit

import (
	"os"
	"syscall"
	"testing"

	"github.com/retry-dev/retry/runner/output"
)

func TestExitForStream(t *testing.T) {
	if got := ForStream(&output.StreamError{Stream: "stdout", Err: &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}}); got != 141 {
		t.Errorf("broken pipe: %d, want 141", got)
	}
	if got := ForStream(&output.StreamError{Stream: "stdout", Err: syscall.ENOSPC}); got != IOError {
		t.Errorf("full device: %d, want %d", got, IOError)
	}
	err := &output.StreamError{Stream: "stdout", Err: &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}}
	if got := err.Error(); got != "writing stdout: no space left on device" {
		t.Errorf("message %q", got)
	}
}
