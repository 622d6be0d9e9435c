package echo

import (
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

// A line longer than maxLine is written in pieces, not held whole.
func TestWriterLongLine(t *testing.T) {
	var b strings.Builder
	w := (&Policy{}).Writer(&b)
	w.Write([]byte(strings.Repeat("a", maxLine+10)))
	if b.Len() < maxLine {
		t.Errorf("held %d bytes", maxLine+10-b.Len())
	}
	w.Close()
	if b.Len() != maxLine+11 {
		t.Errorf("wrote %d bytes", b.Len())
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
