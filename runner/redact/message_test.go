package redact

import "testing"

func TestMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		// The parser's words stay; the quoted value is hidden as text.
		{`--retry: "3.a": invalid JMESPath expression "3.a": Invalid token: tNumber at offset 0`,
			`--retry: "3.a": invalid JMESPath expression "3.a": Invalid token: tNumber at offset 0`},
		{`--success: "Authorization: Bearer S": bad`, `--success: "Authorization: REDACTED": bad`},
		{`--header: "X-Api-Key: S q": bad`, `--header: "X-Api-Key: REDACTED": bad`},
		// A value of a flag or variable with a secret name goes whole.
		{`--idempotency-key: "a b": too long`, `--idempotency-key: "REDACTED": too long`},
		{`RETRY_TOKEN (for --token): "a b": bad`, `RETRY_TOKEN (for --token): "REDACTED": bad`},
		{`--delay: "soon": want a duration`, `--delay: "soon": want a duration`},
		// Outside quotes: URLs, credentials and NAME=VALUE still go.
		{`Get https://u:S@h/: refused`, `Get https://REDACTED@h/: refused`},
		{`unknown flag: --x token=S`, `unknown flag: --x token=REDACTED`},
		{`cannot use Bearer S here`, `cannot use Bearer REDACTED here`},
		// An unterminated quote: the rest is words.
		{`--x: "a token=S`, `--x: "a token=REDACTED`},
		{``, ``},
	}
	for _, tt := range tests {
		if got := Message(tt.in); got != tt.want {
			t.Errorf("Message(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
