package iostreams

import (
	"bytes"
	"testing"
)

// A log line starts on a new line after a child's unfinished one, and only
// then.
func TestSharedStderrNewline(t *testing.T) {
	var buf bytes.Buffer
	s := NewSharedStderr(&buf)
	s.Child().Write([]byte("partial"))
	s.Log().Write([]byte("retry: one\n"))
	s.Child().Write([]byte("whole\n"))
	s.Log().Write([]byte("retry: two\n"))
	want := "partial\nretry: one\nwhole\nretry: two\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}
