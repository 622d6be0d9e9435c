package echo

import (
	"fmt"
	"strings"
	"testing"
)

func TestWriterRedacts(t *testing.T) {
	var b strings.Builder
	w := (&Policy{}).Writer(&b)
	for _, piece := range []string{"GITHUB_TO", "KEN=S1\napi_token=S2\n", "aws_secret_access_key = S3\n{\"client_secret\": \"S4\"}\n",
		"-----BEGIN PRIVATE KEY-----\nMIIsecret\nmore\n-----END PRIVATE KEY-----\n", "no newline password: S5"} {
		w.Write([]byte(piece))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "GITHUB_TOKEN=REDACTED\napi_token=REDACTED\naws_secret_access_key = REDACTED\n{\"client_secret\": \"REDACTED\"}\n" +
		"-----BEGIN PRIVATE KEY-----\nREDACTED\n-----END PRIVATE KEY-----\nno newline password: REDACTED\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// In GitHub mode a repeated stream is wrapped, with a token that differs
// per run; a stream with no byte writes nothing.
func TestWriterGitHub(t *testing.T) {
	p := New(true)
	if len(p.Token()) < 32 || p.Token() == New(true).Token() {
		t.Fatalf("token %q", p.Token())
	}
	var b strings.Builder
	w := p.Writer(&b)
	w.Write([]byte("x\n::error::forged\n::" + "stop-commands::mine"))
	w.Close()
	want := "::stop-commands::" + p.Token() + "\nx\n::error::forged\n::stop-commands::mine\n::" + p.Token() + "::\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	w = p.Writer(&b)
	w.Close()
	if b.Len() != 0 || w.Wrote() {
		t.Errorf("an empty stream wrote %q", b.String())
	}
	if New(false).Token() != "" || (*Policy)(nil).Token() != "" {
		t.Errorf("a token outside GitHub mode")
	}
}

// A line longer than 64 KiB is redacted whole, with the name before a
// value that a 64 KiB piece would have cut from it; a line longer than
// maxLine is written up to its last blank, redacted, and the rest of it
// shows as the placeholder, whatever writes it comes in.
func TestWriterLongLine(t *testing.T) {
	var b strings.Builder
	w := (&Policy{}).Writer(&b)
	pad := strings.Repeat("x", 64<<10-len("a password="))
	w.Write([]byte("a " + pad + " password="))
	w.Write([]byte("SEKRET1 b\nnext\n"))
	w.Close()
	if want := "a " + pad + " password=REDACTED b\nnext\n"; b.String() != want {
		t.Errorf("got %.80q…%q", b.String(), b.String()[max(b.Len()-40, 0):])
	}

	b.Reset()
	w = (&Policy{}).Writer(&b)
	long := strings.Repeat("word ", maxLine/5)
	w.Write([]byte("token=S1 " + long))
	w.Write([]byte("password=SEKRET2 more"))
	w.Write([]byte(" SEKRET3\nafter password=SEKRET4\n"))
	w.Close()
	got := b.String()
	if strings.Contains(got, "S1") || strings.Contains(got, "SEKRET") || !strings.HasPrefix(got, "token=REDACTED word ") ||
		!strings.HasSuffix(got, "word REDACTED\nafter password=REDACTED\n") {
		t.Errorf("got %.80q…%q", got, got[max(len(got)-60, 0):])
	}

	b.Reset()
	w = (&Policy{}).Writer(&b)
	w.Write([]byte(strings.Repeat("a", maxLine+10)))
	w.Write([]byte("b\nc\n"))
	w.Close()
	if b.String() != "REDACTED\nc\n" {
		t.Errorf("a line without blank: got %.80q", b.String())
	}
}

// A YAML block value whose key came in an earlier write is still hidden.
func TestWriterYAMLAcrossWrites(t *testing.T) {
	var b strings.Builder
	w := (&Policy{}).Writer(&b)
	for _, piece := range []string{"db:\n  password: |\n", "    SEKRET-1\n", "    SEKRET-2\n  user: app\n"} {
		w.Write([]byte(piece))
	}
	w.Close()
	if want := "db:\n  password: REDACTED\n    REDACTED\n    REDACTED\n  user: app\n"; b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

// A private key whose lines come in separate writes still loses its body.
func TestWriterPEMAcrossWrites(t *testing.T) {
	var b strings.Builder
	w := (&Policy{}).Writer(&b)
	for _, piece := range []string{"a\n-----BEGIN EC PRIVATE KEY-----\nMII", "body1\n", "body2\n-----END EC PRIVATE KEY-----\nb\n"} {
		w.Write([]byte(piece))
	}
	w.Close()
	if want := "a\n-----BEGIN EC PRIVATE KEY-----\nREDACTED\n-----END EC PRIVATE KEY-----\nb\n"; b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

// A workflow command's message is escaped as the GitHub runner unescapes
// it (% first), after redaction: one line that starts no command.
func TestWorkflowData(t *testing.T) {
	for _, c := range []struct{ in, data string }{
		{"plain", "plain"},
		{"100%", "100%25"},
		{"%0A", "%250A"},
		{"a\nb\r\nc", "a%0Ab%0D%0Ac"},
		{"x::error::y", "x::error::y"},
		{"k=v,title=z", "k=v,title=z"},
		{"GITHUB_TOKEN=ghp_0123456789abcdef\n::error::x", "GITHUB_TOKEN=REDACTED%0A::error::x"},
	} {
		if got := Untrusted(c.in).WorkflowData(); got != c.data {
			t.Errorf("Untrusted(%q).WorkflowData() = %q, want %q", c.in, got, c.data)
		}
	}
}

// Untrusted text leaves only redacted: through String, and so through
// fmt's %s and %v, Line (one line on GitHub) and JSON's Bytes.
func TestUntrustedLeavesRedacted(t *testing.T) {
	u := Sprintf("curl -H 'Authorization: Bearer %s'\nnext", "abcdefghijklmnopqrstuvwxyz")
	for name, got := range map[string]string{
		"String": u.String(), "%s": fmt.Sprintf("%s", u), //nolint:staticcheck // %s is the path under test
		"%v":          fmt.Sprint(u),
		"Line(false)": u.Line(false), "Line(true)": u.Line(true),
	} {
		if strings.Contains(got, "abcdefghijklmnopqrstuvwxyz") {
			t.Errorf("%s: %q holds the secret", name, got)
		}
	}
	if got := u.Line(true); strings.Contains(got, "\n") {
		t.Errorf("Line(true) = %q: want its line break escaped", got)
	}
	j, err := Marshal(map[string]string{"password": "hunter2hunter2", "log": "token=abcdefghijklmnopqrstuvwxyz"})
	if err != nil {
		t.Fatal(err)
	}
	if b := string(j.Bytes()); strings.Contains(b, "hunter2") || strings.Contains(b, "abcdefghijklmnopqrstuvwxyz") {
		t.Errorf("JSON.Bytes() = %s: holds a secret", b)
	}
}
