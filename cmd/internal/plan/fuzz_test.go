package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retry-dev/retry/internal/testdir"
	"github.com/retry-dev/retry/runner/output"
)

// FuzzParseSize: --max-output sizes parse or are refused; what parses is
// never negative, and FormatSize writes it back to the same size.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "1048576", "512K", "10M", "1GiB", "1.5G", "8eib", "-1", "1.5", "9223372036854775807", "9999999T", " 2 mb ", "k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d < 0", s, n)
		}
		back, err := ParseSize(output.FormatSize(n))
		if err != nil || back != n {
			t.Fatalf("ParseSize(%q) = %d, written %q, read back %d, %v", s, n, output.FormatSize(n), back, err)
		}
	})
}

// FuzzLoadArg: --data and --input values. DATA is itself; @FILE is the
// file's bytes exactly; @- is stdin's; never a panic, never more than the
// 64 MiB bound.
func FuzzLoadArg(f *testing.F) {
	for _, s := range []string{"{\"a\":1}", "@", "@-", "plain text", "@@x", "\x00\xff"} {
		f.Add(s, []byte("file content\n"))
	}
	dir := testdir.New(f)
	f.Fuzz(func(t *testing.T, arg string, content []byte) {
		got, err := loadArg(arg, bytes.NewReader(content))
		switch name, file := strings.CutPrefix(arg, "@"); {
		case !file:
			if err != nil || string(got) != arg {
				t.Fatalf("loadArg(%q) = %q, %v; want the argument itself", arg, got, err)
			}
		case name == "-":
			if err != nil || !bytes.Equal(got, content) {
				t.Fatalf("loadArg(@-) = %q, %v; want stdin's bytes", got, err)
			}
		}
		// @FILE with the fuzzed content, byte-exact.
		p := filepath.Join(dir, "data")
		if err := os.WriteFile(p, content, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err = loadArg("@"+p, nil)
		if err != nil || !bytes.Equal(got, content) {
			t.Fatalf("loadArg(@FILE) = %q, %v; want the file's bytes", got, err)
		}
	})
}
