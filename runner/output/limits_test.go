package output

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retry-dev/retry/internal/testdir"
)

// A Capture whose spill file cannot be created keeps the stream in memory
// up to MemoryFallback, whole, and fails past it.
func TestCaptureMemoryFallback(t *testing.T) {
	c := NewCapture(filepath.Join(testdir.New(t), "missing"), 10, 4)
	c.MemoryFallback = 100
	defer c.Close()
	data := bytes.Repeat([]byte("0123456789"), 9)
	if _, err := c.Write(data); err != nil {
		t.Fatalf("90 bytes within the fallback: %v", err)
	}
	rc, err := c.Open()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(rc); !bytes.Equal(got, data) {
		t.Errorf("not whole: %d bytes", len(got))
	}
	_, err = c.Write(data)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "memory fallback holds at most 100B") {
		t.Fatalf("past the fallback: %v", err)
	}
	if _, err := c.Open(); err == nil {
		t.Errorf("a cut stream opens")
	}
}

// Without a fallback the spill error is final at once.
func TestCaptureNoFallback(t *testing.T) {
	c := NewCapture(filepath.Join(testdir.New(t), "missing"), 10, 4)
	defer c.Close()
	if _, err := c.Write(make([]byte, 11)); err == nil {
		t.Fatalf("a spill that cannot happen was accepted")
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 1500: "1500B", 1 << 20: "1MiB", 10 << 30: "10GiB", 1536: "1536B", 3 << 29: "1536MiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
