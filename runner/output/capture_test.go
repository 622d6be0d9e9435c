package output

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/retry-dev/retry/internal/testdir"
)

// writeIn writes data to c in pieces of the given sizes, cycling.
func writeIn(t *testing.T, c *Capture, data []byte, sizes ...int) {
	t.Helper()
	for i := 0; len(data) > 0; i++ {
		k := min(sizes[i%len(sizes)], len(data))
		if n, err := c.Write(data[:k]); n != k || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
		data = data[k:]
	}
}

func readCapture(t *testing.T, c *Capture) []byte {
	t.Helper()
	rc, err := c.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCapture(t *testing.T) {
	data := make([]byte, 300_000)
	for i := range data {
		data[i] = byte(i * 7 / 3)
	}
	tests := []struct {
		name      string
		threshold int64
		window    int
		size      int
		pieces    []int
		spilled   bool
	}{
		{"empty", 100, 10, 0, []int{1}, false},
		{"small in memory", 1 << 20, 10, 5, []int{1}, false},
		{"memory across blocks", 1 << 20, 100_000, 200_000, []int{1, 4095, 70_000}, false},
		{"exactly the threshold", 1000, 10, 1000, []int{999, 1}, false},
		{"one past the threshold", 1000, 10, 1001, []int{1000, 1}, true},
		{"spilled in pieces", 64 << 10, 70_000, 300_000, []int{1, 333, 65536, 9}, true},
		{"spill at once", 0, 10, 3, []int{1}, true},
		{"never spill", -1, 10, 300_000, []int{100_000}, false},
		{"no window", 100, 0, 1000, []int{7}, true},
		{"window larger than the stream", 100, 1 << 20, 1000, []int{7}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testdir.New(t)
			c := NewCapture(dir, tt.threshold, tt.window)
			want := data[:tt.size]
			writeIn(t, c, want, tt.pieces...)
			if c.Size() != int64(tt.size) || (c.file != nil) != tt.spilled {
				t.Fatalf("Size %d Spilled %v, want %d %v", c.Size(), c.file != nil, tt.size, tt.spilled)
			}
			for range 2 {
				if got := readCapture(t, c); !bytes.Equal(got, want) {
					t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
				}
			}
			wantTail := want[len(want)-min(len(want), tt.window):]
			if got := c.Tail(); !bytes.Equal(got, wantTail) {
				t.Errorf("Tail: %d bytes, want the last %d", len(got), len(wantTail))
			}
			if tt.size > 10 {
				p := make([]byte, 10)
				if n, err := c.ReadAt(p, int64(tt.size-5)); n != 5 || err != io.EOF || !bytes.Equal(p[:5], want[tt.size-5:]) {
					t.Errorf("ReadAt across the end: %d, %v", n, err)
				}
			}
			// On Unix the spill file has no name while it is open; on
			// Windows it has one until it is closed (delete on close).
			if ents, _ := os.ReadDir(dir); len(ents) != 0 && runtime.GOOS != "windows" {
				t.Errorf("the spill file is visible in dir")
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("the spill file is left in dir after Close")
			}
			if _, err := c.Open(); !errors.Is(err, ErrCaptureClosed) {
				t.Errorf("Open after Close: %v", err)
			}
			if _, err := c.Write([]byte("x")); !errors.Is(err, ErrCaptureClosed) {
				t.Errorf("Write after Close: %v", err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

func TestCaptureSpillFailure(t *testing.T) {
	c := NewCapture("/nonexistent-dir-for-retry", 4, 10)
	if _, err := c.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("de")); err == nil {
		t.Fatal("spilling to a missing directory succeeded")
	}
	if _, err := c.Open(); err == nil {
		t.Errorf("Open of a truncated capture succeeded")
	}
	if _, err := c.Write([]byte("f")); err == nil {
		t.Errorf("Write after a failure succeeded")
	}
}
