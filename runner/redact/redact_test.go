package redact

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com/x?y=1", "https://example.com/x?y=1"},
		{"https://user:pass@example.com/x", "https://REDACTED@example.com/x"},
		{"https://user@example.com", "https://REDACTED@example.com"},
		{"http://u:p@h:8080?q=a@b", "http://REDACTED@h:8080?q=a@b"},
		{"http://h/path@x", "http://h/path@x"},
		{"http://h#frag@x", "http://h#frag@x"},
		{"http://a@b:p@ss@host/", "http://REDACTED@host/"},
		{"https://us er:p%zz@host/", "https://REDACTED@host/"}, // url.Parse refuses it
		{"u:p@host/x", "REDACTED@host/x"},
		{"host/x@y", "host/x@y"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactHeader(t *testing.T) {
	h := http.Header{
		"Authorization":       {"Bearer secret"},
		"Proxy-Authorization": {"Basic c2VjcmV0"},
		"Cookie":              {"a=secret"},
		"Set-Cookie":          {"s=secret1", "t=secret2"},
		"x-api-key":           {"secret"}, // not canonical: still matched
		"Content-Type":        {"application/json"},
	}
	got := Header(h)
	want := http.Header{
		"Authorization":       {"REDACTED"},
		"Proxy-Authorization": {"REDACTED"},
		"Cookie":              {"REDACTED"},
		"Set-Cookie":          {"REDACTED", "REDACTED"},
		"x-api-key":           {"REDACTED"},
		"Content-Type":        {"application/json"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Header = %v, want %v", got, want)
	}
	if h.Get("Authorization") != "Bearer secret" {
		t.Errorf("Header modified its argument: %v", h)
	}
	got["Content-Type"][0] = "changed"
	if h.Get("Content-Type") != "application/json" {
		t.Errorf("Header shares value slices with its argument")
	}
	if Header(nil) != nil {
		t.Errorf("Header(nil) is not nil")
	}
}

func TestRedactError(t *testing.T) {
	inner := errors.New("dial tcp: connection refused")
	err := Error(&url.Error{Op: "Get", URL: "http://user:pw@h/", Err: inner})
	if got, want := err.Error(), `Get "http://REDACTED@h/": dial tcp: connection refused`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, inner) {
		t.Errorf("the redacted error does not wrap the original cause")
	}
	plain := errors.New("x")
	if Error(plain) != plain {
		t.Errorf("an error without URL was changed")
	}
	if s := Error(&url.Error{Op: "Get", URL: "http://a:b@h/", Err: &url.Error{Op: "Get", URL: "http://c:d@h2/", Err: inner}}).Error(); strings.Contains(s, "a:b") || strings.Contains(s, "c:d") {
		t.Errorf("nested URL errors not redacted: %s", s)
	}
}

func TestRedactText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text: nothing", "plain text: nothing"},
		{`Get "https://u:p/ss@h:1/x?access_token=abc&a=1&X-Amz-Signature=f00#k=v": refused`,
			`Get "https://REDACTED@h:1/x?access_token=REDACTED&a=1&X-Amz-Signature=REDACTED#k=v": refused`},
		{"http://h:8080/path@x", "http://REDACTED@x"}, // too much hidden rather than a password shown
		{"Authorization: Bearer S", "Authorization: REDACTED"},
		{"curl -H 'X-Vault-Token: S3' https://u:S2@h/", "curl -H 'X-Vault-Token: REDACTED' https://REDACTED@h/"},
		{"token Bearer abc.def-ghi", "token Bearer REDACTED"},
		{"basic dXNlcjpwYXNz", "basic REDACTED"},
		{`"headers":"Private-Token: S\nX-Trace: ok"`, `"headers":"Private-Token: REDACTED\nX-Trace: ok"`},
		{"retry: --idempotency-key: invalid", "retry: --idempotency-key: invalid"},
		{"https://h/?sig=1;key=2;q=3", "https://h/?sig=REDACTED;key=REDACTED;q=3"},
		// NAME=VALUE, NAME = VALUE, NAME: VALUE and JSON keys, as a
		// command's output or a failure body holds them.
		{"GITHUB_TOKEN=S1", "GITHUB_TOKEN=REDACTED"},
		{"export api_token=S2 next", "export api_token=REDACTED next"},
		{"aws_secret_access_key = S3", "aws_secret_access_key = REDACTED"},
		{`{"client_secret": "S4", "id": "x"}`, `{"client_secret": "REDACTED", "id": "x"}`},
		{`{"password":"SEKRET"}`, `{"password":"REDACTED"}`},
		{`{'password': 'S', 'token': 12345}`, `{'password': 'REDACTED', 'token': REDACTED}`},
		{"password: X", "password: REDACTED"},
		{"a=1&token=S5;b=2", "a=1&token=REDACTED;b=2"},
		{`PGPASSWORD="two words" psql`, `PGPASSWORD="REDACTED" psql`},
		{"SENTRY_DSN=https://k@o.ingest/1", "SENTRY_DSN=REDACTED"},
		{`echo "{\"client_secret\": \"S4\", \"id\": \"x\"}"`, `echo "{\"client_secret\": \"REDACTED\", \"id\": \"x\"}"`},
		{"if token == nil", "if token == nil"},
		{"page=2 retries=3", "page=2 retries=3"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----REDACTED-----END RSA PRIVATE KEY-----"},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactArgv(t *testing.T) {
	in := []string{"curl", "-H", "Authorization: Bearer S", "https://u:S2@h/?token=S3", "--api-key=S4", "--shell", "GITHUB_TOKEN=S5 make", "--page=2"}
	want := []string{"curl", "-H", "Authorization: REDACTED", "https://REDACTED@h/?token=REDACTED", "--api-key=REDACTED", "--shell", "GITHUB_TOKEN=REDACTED make", "--page=2"}
	if got := Argv(in); !reflect.DeepEqual(got, want) {
		t.Errorf("Argv = %q\nwant %q", got, want)
	}
	if in[2] != "Authorization: Bearer S" {
		t.Errorf("Argv modified its argument")
	}
	// -u USER:PASSWORD and -uUSER:PASSWORD follow one rule, a password
	// that starts with "//" too (FuzzRedactShapes found the attached
	// spelling kept it).
	in = []string{"curl", "-u", "A://S6", "-uA://S7", "-Ubob:S8"}
	want = []string{"curl", "-u", "A:REDACTED", "-uA:REDACTED", "-Ubob:REDACTED"}
	if got := Argv(in); !reflect.DeepEqual(got, want) {
		t.Errorf("Argv = %q\nwant %q", got, want)
	}
}

func TestSecretNames(t *testing.T) {
	for _, n := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token", "X-Amz-Security-Token", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "client_secret", "PGPASSWORD", "passwd", "db_pwd", "api_key", "apikey", "credentials", "cookie", "private_key", "SENTRY_DSN", "--api-key", "X-Goog-Api-Key", "Private-Token", "X-Vault-Token", "api-key", "X-Auth", "access_token", "X-Amz-Signature", "token", "key", "sig", "password", "SESSIONID"} {
		if !isSecretName(n) || !IsSecretHeader(n) {
			t.Errorf("%s is not secret", n)
		}
	}
	for _, n := range []string{"X-Trace", "Accept", "page", "q", "Content-Type"} {
		if isSecretName(n) {
			t.Errorf("%s is secret", n)
		}
	}
}

// TestMayHoldCredential checks the pre-check that spares most text the
// credential regexp: wherever the regexp would change a string, the
// pre-check says it may hold a credential.
func TestMayHoldCredential(t *testing.T) {
	words := []string{"Bearer", "bearer", "BASIC", "Basic", "baSic", "baſic", "bearer\t", "basics", "x", " ", "\t", "abc.DEF-1~", "=", "ébasic", "b", "as", "ic"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(words[r.IntN(len(words))])
		}
		s := b.String()
		if credential.get().ReplaceAllString(s, "${1}${2}"+Placeholder) != s && !mayHoldCredential(s) {
			t.Fatalf("%q: the regexp redacts it, the pre-check skips it", s)
		}
	}
	for _, s := range []string{"/bin/true", "make test", "curl -H x https://example.com/a"} {
		if mayHoldCredential(s) {
			t.Errorf("%q: the pre-check does not skip it", s)
		}
	}
}

func TestRedactJSON(t *testing.T) {
	type step struct {
		Name  string
		Value string
		State int
	}
	trace, _ := json.Marshal(map[string]any{"trace": []step{{"--retry-header", "Bearer sekrit123", 2}}, "n": 1})
	tests := []struct{ in, want string }{
		{string(trace), `{"n":1,"trace":[{"Name":"--retry-header","Value":"Bearer REDACTED","State":2}]}`},
		{`{"stdout_tail":"GITHUB_TOKEN=S1\napi_token=S2\n{\"client_secret\": \"S4\"}\n"}`,
			`{"stdout_tail":"GITHUB_TOKEN=REDACTED\napi_token=REDACTED\n{\"client_secret\": \"REDACTED\"}\n"}`},
		{`{"client_secret": "S4", "token": 12345, "ok": "yes", "x": {"password": ["kept as Text"]}}`,
			`{"client_secret": "REDACTED", "token": "REDACTED", "ok": "yes", "x": {"password": ["REDACTED"]}}`},
		{`{"a":"http://u:p@h/"}`, `{"a":"http://REDACTED@h/"}`},
		{`[1,"x",{"k":null}]`, `[1,"x",{"k":null}]`},
		{`{"tokens": ["S1", 23, {"id": "x"}], "n": ["ok"], "auth": {"user": "u", "pass": "p"}}`,
			`{"tokens": ["REDACTED", "REDACTED", {"id": "REDACTED"}], "n": ["ok"], "auth": {"user": "u", "pass": "REDACTED"}}`},
		{`not json token=S`, `not json token=REDACTED`},
	}
	for _, tt := range tests {
		if got := string(JSON([]byte(tt.in))); got != tt.want {
			t.Errorf("JSON(%s)\n = %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// TestMayNameSecret checks the pre-check that spares text naming no secret
// the name-based regexps: Text with it gives what the regexps give.
func TestMayNameSecret(t *testing.T) {
	words := []string{"Authorization", "X-Trace", "token", "TOKEN", "api_key", "\u212aey", "sig", "JWT", "pass", "Sentry_DSN", "database_url",
		"=", ": ", ":", " = ", "\"", "'", "\\\"", "\n", " ", "value", "name", "-", "--", "x", "{", "}", ",", "&", "level=info", "status=200"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 30000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(words[r.IntN(len(words))])
		}
		s := b.String()
		if mayNameSecret(s) {
			continue
		}
		got := headerLine.get().ReplaceAllStringFunc(s, func(m string) string {
			sub := headerLine.get().FindStringSubmatch(m)
			if !IsSecretHeader(sub[2]) || sub[4] == "" || sub[4] == Placeholder {
				return m
			}
			return sub[1] + sub[2] + ":" + sub[3] + Placeholder
		})
		if got != s || assignments(s) != s {
			t.Fatalf("%q: a regexp redacts it, the pre-check skips it", s)
		}
		for _, re := range []*lazyRegexp{&jsonKey, &escapedJSONKey} {
			for _, m := range re.get().FindAllStringSubmatch(s, -1) {
				if name := strings.Trim(m[1], `\"'`); isSecretName(name) {
					t.Fatalf("%q: the key %q is secret, the pre-check skips it", s, name)
				}
			}
		}
	}
	if mayNameSecret(`2026-11-23T04:00:00 level=info msg="request 1 done" alpha1 beta-7 status=200 bytes=13`) {
		t.Error("a plain log line names a secret")
	}
}

func TestRedactArgvShapes(t *testing.T) {
	in := []string{"tool", "--password", "S1", "--client-secret", "S2", "--token", "S3", "-u", "alice:S4", "-ubob:S5",
		"--user", "carol:S6", "--token", "--verbose", "http://h/app;jsessionid=S7/x?a=1",
		"sh -c 'curl --password S8 -u dave:S9 --token \"S10\" x'", "--key-file", "k.pem", "-n", "3"}
	want := []string{"tool", "--password", "REDACTED", "--client-secret", "REDACTED", "--token", "REDACTED", "-u", "alice:REDACTED", "-ubob:REDACTED",
		"--user", "carol:REDACTED", "--token", "--verbose", "http://h/app;jsessionid=REDACTED/x?a=1",
		"sh -c 'curl --password REDACTED -u dave:REDACTED --token \"REDACTED\" x'", "--key-file", "REDACTED", "-n", "3"}
	if got := Argv(in); !reflect.DeepEqual(got, want) {
		t.Errorf("Argv = %q\nwant %q", got, want)
	}
}

func TestRedactTextShapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"key AKIAIOSFODNN7EXAMPLE in use", "key REDACTED in use"},
		{"ASIAY34FZKBOKMUTVV7A", "REDACTED"},
		{"AKIA is a prefix", "AKIA is a prefix"},
		{"push with ghp_" + strings.Repeat("a1B2", 9) + " now", "push with REDACTED now"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "REDACTED"},
		{"Authorization: token 0123456789abcdef", "Authorization: REDACTED"},
		{"vault login token s.abc123def456", "vault login token REDACTED"},
		{"the token expired", "the token expired"},
		{"GET http://h/app;jsessionid=S1?x=1 200", "GET http://h/app;jsessionid=REDACTED?x=1 200"},
		{"GET /app;jsessionid=S1 200", "GET /app;jsessionid=REDACTED 200"},
		{"db:\n  password: |\n    S1\n    S2\n  user: x\n", "db:\n  password: REDACTED\n    REDACTED\n    REDACTED\n  user: x\n"},
		{"token: >-\n  S3\nnext: 1", "token: REDACTED\n  REDACTED\nnext: 1"},
		{"- secret:\n    S4\n", "- secret:\n    REDACTED\n"},
		{"credentials:\n  user: a\n  password: S5\n", "credentials:\n  user: a\n  password: REDACTED\n"},
		{`{"tokens": ["S1", "S2"], "Credentials":{"SecretAccessKey":"S3","Id":"x"}}`, `{"tokens": REDACTED, "Credentials":{"SecretAccessKey":"REDACTED","Id":"x"}}`},
		{"password: 'S6'\nsecret: \"S7\" # note\nuser: \"u\"\n", "password: 'REDACTED'\nsecret: \"REDACTED\" # note\nuser: \"u\"\n"},
		{"tokens:\n  - S8\n  - S9\nnext: 1\n", "tokens:\n  - REDACTED\n  - REDACTED\nnext: 1\n"},
		{"tokens:\n- S8\n- S9\nnext: 1\n", "tokens:\n- REDACTED\n- REDACTED\nnext: 1\n"},
		{"secrets:\n  - name: a\n    value: b\n", "secrets:\n  - name: a\n    value: b\n"},
		// JSON lists of a secret key: nested, and left open by the key's
		// line (pretty-printed: the items indented under it, to its "]").
		{`{"tokens": [["S1"], ["S2"]], "id": 1}`, `{"tokens": REDACTED, "id": 1}`},
		{"{\n  \"api_keys\": [\n    \"S1\",\n    \"S2\"\n  ],\n  \"user\": \"u\"\n}\n", "{\n  \"api_keys\": REDACTED\n    REDACTED\n    REDACTED\n  ],\n  \"user\": \"u\"\n}\n"},
		{"\"tokens\": [\"S1\",\r\n  \"S2\"]\r\n\"id\": 1\r\n", "\"tokens\": REDACTED\r\n  REDACTED\r\n\"id\": 1\r\n"},
		{"\"keys\": [\n\n    [\"S1\"]\n]\n", "\"keys\": REDACTED\n\n    REDACTED\n]\n"},
		{"\"names\": [\n  \"a\"\n]\n", "\"names\": [\n  \"a\"\n]\n"},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestStreamPieces: text given to a Stream a line at a time shows as Text
// shows it whole: a value whose key came in an earlier piece (a YAML block,
// a JSON list left open) is hidden still.
func TestStreamPieces(t *testing.T) {
	for _, in := range []string{
		"db:\n  password: |\n    S1\n    S2\n  user: x\n",
		"{\n  \"api_keys\": [\n    \"S1\",\n    \"S2\"\n  ],\n  \"user\": \"u\"\n}\n",
		"tokens:\n  - S8\n  - S9\nnext: 1\n",
	} {
		var st Stream
		var out []byte
		for _, line := range strings.SplitAfter(in, "\n") {
			if b, changed := st.AppendText(nil, line); changed {
				out = append(out, b...)
			} else {
				out = append(out, line...)
			}
		}
		if want := Text(in); string(out) != want || strings.Contains(want, "S1") || strings.Contains(want, "S8") {
			t.Errorf("a line at a time: %q\nText whole: %q", out, want)
		}
	}
}
