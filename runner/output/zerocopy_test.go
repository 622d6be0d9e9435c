package output

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/retry-dev/retry/internal/testdir"
)

// onlyWriter hides every method of a writer but Write.
type onlyWriter struct{ io.Writer }

// TestCaptureWriteTo checks that io.Copy of an opened Capture writes the
// stream byte-exact from where the reader is, in memory and spilled, to a
// file (the kernel's copy on Linux), to a pipe, and to a plain writer.
func TestCaptureWriteTo(t *testing.T) {
	data := make([]byte, 700_000)
	for i := range data {
		data[i] = byte(i*13/7 + i>>11)
	}
	for _, tc := range []struct {
		name      string
		threshold int64
	}{{"in memory", -1}, {"spilled", 1000}} {
		for _, skip := range []int{0, 1, 65_536, 699_999, 700_000} {
			c := NewCapture(testdir.New(t), tc.threshold, 10)
			writeIn(t, c, data, 4096, 70_001)
			want := data[skip:]
			open := func() io.Reader {
				rc, err := c.Open()
				if err != nil {
					t.Fatal(err)
				}
				if _, err := io.CopyN(io.Discard, rc, int64(skip)); err != nil {
					t.Fatal(err)
				}
				return rc
			}

			var buf bytes.Buffer
			if n, err := io.Copy(onlyWriter{&buf}, open()); err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s, from %d, to a writer: %d bytes, %v", tc.name, skip, n, err)
			}

			f, err := os.Create(testdir.New(t) + "/out")
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("head:")
			rc := open()
			if n, err := io.Copy(f, rc); err != nil || n != int64(len(want)) {
				t.Errorf("%s, from %d, to a file: %d bytes, %v", tc.name, skip, n, err)
			}
			if n, err := rc.Read(make([]byte, 1)); n != 0 || err != io.EOF {
				t.Errorf("%s, from %d: the reader is not at the end after the copy: %d, %v", tc.name, skip, n, err)
			}
			f.Close()
			if got, _ := os.ReadFile(f.Name()); !bytes.Equal(got, append([]byte("head:"), want...)) {
				t.Errorf("%s, from %d, to a file: %d bytes written, not the %d of the stream after 5 of the file", tc.name, skip, len(got), len(want))
			}

			// O_APPEND: the kernel refuses sendfile(2); the copy is made.
			af, err := os.OpenFile(f.Name(), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := io.Copy(af, open()); err != nil || n != int64(len(want)) {
				t.Errorf("%s, from %d, appended to a file: %d bytes, %v", tc.name, skip, n, err)
			}
			af.Close()
			if got, _ := os.ReadFile(f.Name()); !bytes.Equal(got, append(append([]byte("head:"), want...), want...)) {
				t.Errorf("%s, from %d, appended to a file: %d bytes in the file", tc.name, skip, len(got))
			}

			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			got := make(chan []byte)
			go func() { b, _ := io.ReadAll(pr); got <- b }()
			if n, err := io.Copy(pw, open()); err != nil || n != int64(len(want)) {
				t.Errorf("%s, from %d, to a pipe: %d bytes, %v", tc.name, skip, n, err)
			}
			pw.Close()
			if b := <-got; !bytes.Equal(b, want) {
				t.Errorf("%s, from %d, to a pipe: %d bytes read, not the %d of the stream", tc.name, skip, len(b), len(want))
			}
			pr.Close()
			c.Close()
		}
	}
}

// TestCaptureSpliceFrom moves a pipe's bytes into a spilled Capture, in
// pieces, and reads them back byte-exact after what was written before.
func TestCaptureSpliceFrom(t *testing.T) {
	c := NewCapture(testdir.New(t), 10, 100)
	defer c.Close()
	notSpilled := NewCapture(testdir.New(t), 1<<20, 100)
	defer notSpilled.Close()
	head := []byte("written before the pipe, past the threshold")
	writeIn(t, c, head, 7)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	body := bytes.Repeat([]byte("0123456789abcdef"), 40_000)
	go func() { pw.Write(body); pw.Close() }()
	rc, err := pr.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := notSpilled.SpliceFrom(rc, 1000); ok {
		t.Fatal("SpliceFrom into a Capture in memory")
	}
	moved := 0
	for {
		n, ok, err := c.SpliceFrom(rc, 100_000)
		if !ok {
			t.Skip("the kernel cannot splice a pipe into the spill file here")
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if n > 100_000 {
			t.Fatalf("moved %d bytes, more than asked", n)
		}
		moved += n
	}
	want := append(head, body...)
	if moved != len(body) || c.Size() != int64(len(want)) {
		t.Fatalf("moved %d, size %d; want %d, %d", moved, c.Size(), len(body), len(want))
	}
	if got := readCapture(t, c); !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes, not the %d written and moved", len(got), len(want))
	}
	if got := c.Tail(); !bytes.Equal(got, want[len(want)-100:]) {
		t.Errorf("Tail after SpliceFrom: %q", got)
	}
}
