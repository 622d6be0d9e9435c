package redact

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// scannerPieces are the parts of text that the rules read: names (secret
// or not, in any case), separators, quotes, escapes, URLs and their
// pieces, credentials, YAML shapes, line breaks and bytes past ASCII.
var scannerPieces = []string{
	"password", "PASSWORD", "token", "Token", "session_id", "api-key", "--api-key", "---key", "-x", "1key", "_secret", "X-Auth-Token",
	"Authorization", "Cookie", "sig", "jwt", "dsn", "database_url", "page", "sort", "p", "a", "x.y", "REDACTED", "REDACTED:",
	"=", "==", " = ", "\t=", ":", ": ", " :", "\t:\t", "://", "https://", "http://u:p@h/x", "?a=1&token=S", ";jsessionid=S", "@", "/",
	"\"", "'", "\\\"", "\\", "\\n", "\"k\"", "'k'", "\"token\"", "'pass'", "\"a b\"", "{", "}", "[", "]", "(", ",", "&", ";", "<", ">",
	" ", "  ", "\t", "\n", "\r\n", "\f", "\v", "-", "_", ".", "#", "|", "~", "!", "+",
	"Bearer ", "basic ", "token abc12345", "AKIAIOSFODNN7EXAMPLE", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_pat_0123456789abcdefghij_x",
	"value", "S3cr3t", "12345", "v", "é", "ſ", "\u212a", "\xff",
	"  password: |\n    S\n", "- secret:\n", "token: >-\n  S\n", "\n  ", "\n    - x", "user: x\n",
	"203.0.113.5 - - [28/Nov/2026:13:05:07 +0000] \"GET /api/items?page=3&sort=date&session_id=12345 HTTP/1.1\" 200 1234 \"https://shop.example.com/list?p=3\" \"Mozilla/5.0\"\n",
}

// TestTextScanners holds text, line by line with its scanners, to the
// regexps of textRegexp over the whole text, on random texts made of the
// pieces the rules read.
func TestTextScanners(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for range n {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(scannerPieces[r.IntN(len(scannerPieces))])
		}
		s := b.String()
		for _, pairs := range []bool{true, false} {
			if got, want := text(s, pairs), textRegexp(s, pairs); got != want {
				t.Fatalf("text(%q, %v)\n = %q\nthe regexps give\n   %q", s, pairs, got, want)
			}
		}
	}
}

// FuzzTextScanners: text, by its scanners line by line, gives what the
// regexps of textRegexp give over the whole text.
func FuzzTextScanners(f *testing.F) {
	for _, p := range scannerPieces {
		f.Add(p, true)
	}
	f.Add("a=\"x\"b=1 c: d 'e': f \"g\":\"h\" password=1", true)
	f.Add(`x "token": "S", 'secret':'S' \"key\": \"S\" Authorization: Bearer S`, true)
	f.Add("GITHUB_TOKEN=S https://u:p@h/?token=S&a=1 --api-key S", false)
	f.Fuzz(func(t *testing.T, s string, pairs bool) {
		if got, want := text(s, pairs), textRegexp(s, pairs); got != want {
			t.Fatalf("text(%q, %v)\n = %q\nthe regexps give\n   %q", s, pairs, got, want)
		}
	})
}

// benchLog is a 1 MiB web access log (bench/redact.sh's), with a secret
// parameter on every line when secret is true.
func benchLog(secret bool) string {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		q := "page=" + itoa(i%50) + "&sort=date"
		if secret {
			q += "&session_id=" + itoa(i*7919%1000003)
		}
		b.WriteString("203.0.113." + itoa(i%254+1) + " - - [28/Nov/2026:13:05:07 +0000] \"GET /api/items?" + q +
			" HTTP/1.1\" 200 " + itoa(512+i%4096) + " \"https://shop.example.com/list?p=" + itoa(i%9) +
			"\" \"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36\"\n")
	}
	return b.String()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// The logs of bench/redact.sh, redacted in blocks of 32 KiB as the echo
// of a retried attempt's output is.
func BenchmarkTextPlainLog(b *testing.B)  { benchText(b, benchLog(false), text) }
func BenchmarkTextSecretLog(b *testing.B) { benchText(b, benchLog(true), text) }
func BenchmarkRegexpPlainLog(b *testing.B) {
	benchText(b, benchLog(false), textRegexp)
}
func BenchmarkRegexpSecretLog(b *testing.B) {
	benchText(b, benchLog(true), textRegexp)
}

func benchText(b *testing.B, log string, f func(string, bool) string) {
	if os.Getenv("REDACT_BENCH_CHECK") != "" && text(log, true) != textRegexp(log, true) {
		b.Fatal("the scanners and the regexps differ on the log")
	}
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		for i := 0; i < len(log); {
			j := min(i+32<<10, len(log))
			if k := strings.LastIndexByte(log[i:j], '\n'); k >= 0 && j < len(log) {
				j = i + k + 1
			}
			f(log[i:j], true)
			i = j
		}
	}
}

// TestTextLineByLine: the echo's redaction of a web log costs a few
// allocations per block, not some per line and per match, as the regexps'
// (ReplaceAllStringFunc, FindStringSubmatch) did: 32 KiB of a log whose
// every line carries a secret parameter, or none, is redacted with at most
// 3 allocations (the text returned and the line scratch).
func TestTextLineByLine(t *testing.T) {
	for _, secret := range []bool{false, true} {
		log := benchLog(secret)
		block := log[:strings.LastIndexByte(log[:32<<10], '\n')+1]
		got := Text(block)
		if secret != strings.Contains(got, "session_id=REDACTED") || strings.Contains(got, "session_id=1") {
			t.Fatalf("secret %v: %.300s", secret, got)
		}
		if n := testing.AllocsPerRun(20, func() { Text(block) }); n > 3 {
			t.Errorf("secret %v: %v allocations for %d bytes", secret, n, len(block))
		}
	}
}

// TestSecretNameASCII holds the one-pass name rule to the rule on a
// lower-case copy, for names made of the words and their neighbours in
// any case.
func TestSecretNameASCII(t *testing.T) {
	pieces := []string{"auth", "token", "key", "secret", "passw", "pass", "pwd", "signature", "sig", "session", "cookie", "credential",
		"jwt", "dsn", "sentry_dsn", "slack_webhook_url", "database_url", "webhook", "url", "_", "-", "x", "s", "p", "a", "ke", "tok", "bearer", "1"}
	r := rand.New(rand.NewPCG(7, 8))
	for range 100000 {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			p := []byte(pieces[r.IntN(len(pieces))])
			for i := range p {
				if r.IntN(3) == 0 && 'a' <= p[i] && p[i] <= 'z' {
					p[i] -= 32
				}
			}
			b.Write(p)
		}
		n := strings.TrimLeft(b.String(), "-")
		if got, want := secretNameASCII(n), secretNameLower(n); got != want {
			t.Fatalf("%q: %v, by its lower-case copy %v", n, got, want)
		}
	}
}
