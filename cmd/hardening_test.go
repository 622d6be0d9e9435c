package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/retry-dev/retry/runner/output"
)

// A log line starts on a new line after a child's unfinished one, and only
// then.
func TestSharedStderrNewline(t *testing.T) {
	var buf bytes.Buffer
	s := &sharedStderr{w: &buf}
	s.child().Write([]byte("partial"))
	s.log().Write([]byte("retry: one\n"))
	s.child().Write([]byte("whole\n"))
	s.log().Write([]byte("retry: two\n"))
	want := "partial\nretry: one\nwhole\nretry: two\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1048576": 1 << 20, "512K": 512 << 10, "10M": 10 << 20, "1GiB": 1 << 30, "1.5g": 3 << 29, " 2 mb ": 2 << 20, "3b": 3,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5", "k", "1x", "1..5M", "9223372036854775807K", "1e3"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

func TestExitForStream(t *testing.T) {
	if got := exitForStream(&output.StreamError{Stream: "stdout", Err: &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}}); got != 141 {
		t.Errorf("broken pipe: %d, want 141", got)
	}
	if got := exitForStream(&output.StreamError{Stream: "stdout", Err: syscall.ENOSPC}); got != exitIOError {
		t.Errorf("full device: %d, want %d", got, exitIOError)
	}
	err := &output.StreamError{Stream: "stdout", Err: &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}}
	if got := err.Error(); got != "writing stdout: no space left on device" {
		t.Errorf("message %q", got)
	}
}

func TestCheckReportWritable(t *testing.T) {
	dir := t.TempDir()
	if err := checkReportWritable(filepath.Join(dir, "r.json")); err != nil {
		t.Errorf("a writable directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json.tmp")); !os.IsNotExist(err) {
		t.Errorf("the probe file was left behind")
	}
	if err := checkReportWritable(filepath.Join(dir, "missing", "r.json")); err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("a missing directory: %v", err)
	}
	if err := checkReportWritable(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}
