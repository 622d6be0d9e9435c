package redact

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRedactURL: the password of a URL never survives URL, nor
// Text around it, whatever the user, the password, the host and the
// rest hold (a password of 4 bytes or more with a byte found nowhere else).
func FuzzRedactURL(f *testing.F) {
	f.Add("https", "alice", "s3cret", "example.com:8443", "/x?y=1")
	f.Add("http", "u", "pa/ss", "h", "/p@x")
	f.Add("http", "a@b", "p@ss:w", "127.0.0.1", "#frag@x")
	f.Fuzz(func(t *testing.T, scheme, user, pass, host, rest string) {
		if len(pass) < 4 || strings.ContainsAny(pass, " \t\n\"'<>") || strings.ContainsAny(user+host+rest, " \t\n\"'<>") {
			return
		}
		others := scheme + user + host + rest + Placeholder + "://@:Get refused"
		if !validScheme(scheme) || strings.IndexFunc(pass, func(r rune) bool { return !strings.ContainsRune(others, r) }) < 0 {
			return // the password must hold a byte found nowhere else, so that finding it means it leaked
		}
		if strings.ContainsAny(host, "/?#@") || strings.ContainsAny(user, "/?#@:") || user == "" {
			return // then the password is not where a URL's password is
		}
		if pass == "xxxxx" {
			return // the mask of the scope store's URLs ("user:xxxxx"), left as is
		}
		if strings.Contains(pass, "@") && strings.ContainsAny(pass, "/?#") {
			// "u:p@/x@h": no reading tells where the authority ends without
			// hiding the host of every "u:p@h/?mail=a@b"; not covered.
			return
		}
		u := scheme + "://" + user + ":" + pass + "@" + host + rest
		if got := URL(u); strings.Contains(got, pass) {
			t.Fatalf("URL(%q) = %q: the password is still there", u, got)
		}
		if strings.IndexFunc(u, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			return // in text, a URL ends at a blank
		}
		if got := Text("Get " + u + ": refused"); strings.Contains(got, pass) {
			t.Fatalf("Text(%q) = %q: the password is still there", u, got)
		}
	})
}

func validScheme(s string) bool {
	if s == "" || !('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// FuzzRedactHeader: the value of a secret header never survives
// Header, nor Text of its "Name: value" line (for names that do
// not start with "-", which in text are flags: "--idempotency-key: …").
func FuzzRedactHeader(f *testing.F) {
	f.Add("Authorization", "Bearer abcdef")
	f.Add("X-Vault-Token", "s.12345")
	f.Add("X-Trace", "visible")
	f.Fuzz(func(t *testing.T, name, value string) {
		if !httpTokenRE.MatchString(name) || !IsSecretHeader(name) || len(value) < 4 || strings.Contains(name, value) || Placeholder == value {
			return
		}
		h := http.Header{name: {value}}
		for _, vs := range Header(h) {
			if slices.Contains(vs, value) {
				t.Fatalf("Header kept %s: %q", name, value)
			}
		}
		if strings.ContainsAny(value, "\n\"'\\") || strings.ContainsAny(name, "'`") || name[0] == '-' || strings.TrimSpace(value) != value || !headerValueRE.MatchString(value) {
			return // not a value a header line in a log can hold whole
		}
		// The value is looked for after the name and its colon, which
		// stay ("Auth0: 0:" keeps "Auth0:"), and not when it is part of
		// the placeholder that replaces it.
		got := Text(name + ": " + value)
		rest, ok := strings.CutPrefix(got, name+":")
		if !ok {
			t.Fatalf("Text(%q) = %q: the header name is gone", name+": "+value, got)
		}
		if strings.Contains(rest, value) && !strings.Contains(Placeholder, value) {
			t.Fatalf("Text(%q) = %q", name+": "+value, got)
		}
	})
}

// The header names and values an HTTP request can carry (RFC 9110: a
// token; a value without control characters but tab), as the HTTP source
// checks them.
var (
	httpTokenRE   = regexp.MustCompile("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$")
	headerValueRE = regexp.MustCompile(`^[^\x00-\x08\x0a-\x1f\x7f]*$`)
)

// FuzzRedactPairs: the value of a pair whose name is secret never
// survives Text, in any of the forms a command's output, a failure body or
// a log holds it — NAME=VALUE, NAME = VALUE, NAME: VALUE, "NAME": "VALUE",
// "NAME": VALUE, 'NAME': 'VALUE', \"NAME\": \"VALUE\" — and nothing else is lost: the text
// before and after it (on lines of their own, which Text leaves alone, but
// for a line indented under a JSON list the pair's line leaves open),
// the name and the separator stay as they were, and only the value becomes
// the placeholder. Argv hides it the same way in an argument.
func FuzzRedactPairs(f *testing.F) {
	f.Add("GITHUB_TOKEN", "S1xyz", uint8(0), "echo start", "done")
	f.Add("api_token", "S2xyz", uint8(0), "", "")
	f.Add("aws_secret_access_key", "S3xyz", uint8(1), "[default]", "region = eu-west-1")
	f.Add("client_secret", "S4xyz", uint8(3), "{", "}")
	f.Add("password", "SEKRET", uint8(2), "HTTP/1.1 401", "x: y")
	f.Add("token", "12345", uint8(4), "{\"id\": 1,", "}")
	f.Add("AWS_SESSION_TOKEN", "FwoGZXIvYXdzE", uint8(5), "export", "aws s3 ls")
	f.Add("client_secret", "S4xyz", uint8(6), `echo "{`, `}"`)
	f.Fuzz(func(t *testing.T, name, value string, form uint8, before, after string) {
		if !isSecretName(name) || len(value) < 4 || value == Placeholder {
			return
		}
		if strings.ContainsAny(value, " \t\r\n\v\f\"'\\&,;=}]") || value[0] == '-' || strings.IndexFunc(value, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }) >= 0 {
			return // not a value these forms hold whole
		}
		if strings.ContainsAny(before+after, "\n\r") || Text(before) != before || Text(after) != after {
			return // the lines around must be ones Text leaves alone
		}
		var pair, masked string
		switch form % 7 {
		case 0, 1:
			if !assignNameRE.MatchString(name) {
				return
			}
			sep := "="
			if form%7 == 1 {
				sep = " = "
			}
			pair, masked = name+sep+value, name+sep+Placeholder
		case 2:
			if !httpTokenRE.MatchString(name) || name[0] == '-' || strings.ContainsAny(name, "'`") {
				return
			}
			pair, masked = name+": "+value, name+": "+Placeholder
		case 3:
			if !jsonNameRE.MatchString(name) {
				return
			}
			pair, masked = `"`+name+`": "`+value+`"`, `"`+name+`": "`+Placeholder+`"`
		case 4:
			if !jsonNameRE.MatchString(name) || value[0] == '{' {
				return // (an object's own keys say what in it is secret, as in JSON)
			}
			pair, masked = `"`+name+`":`+value, `"`+name+`":`+Placeholder
		case 5:
			if !jsonNameRE.MatchString(name) {
				return
			}
			pair, masked = `'`+name+`': '`+value+`'`, `'`+name+`': '`+Placeholder+`'`
		case 6:
			if !jsonNameRE.MatchString(name) {
				return
			}
			pair, masked = `\"`+name+`\": \"`+value+`\"`, `\"`+name+`\": \"`+Placeholder+`\"`
		}
		if strings.Contains(value, "://") || strings.HasPrefix(strings.ToLower(value), "bearer") || strings.HasPrefix(strings.ToLower(value), "basic") {
			return // a URL or a credential of its own: redacted by those rules
		}
		shownAfter := after
		if form%7 == 4 && value[0] == '[' && strings.TrimSpace(after) != "" {
			// A list the line leaves open: its items are the lines
			// indented under the key's line.
			if in := len(after) - len(strings.TrimLeft(after, " \t")); in > 0 {
				shownAfter = after[:in] + Placeholder
			}
		}
		want := before + "\n" + masked + "\n" + shownAfter
		if strings.Contains(want, value) {
			return // the value is also text that stays: finding it says nothing
		}
		in := before + "\n" + pair + "\n" + after
		if got := Text(in); got != want {
			t.Fatalf("Text(%q)\n = %q\nwant %q", in, got, want)
		}
		if form%7 == 0 && !userFlag(before) { // (after -u, USER:PASSWORD's rule hides what follows the first ":")
			if got := Argv([]string{before, pair, after}); got[1] != masked {
				t.Fatalf("Argv kept %q: %q", pair, got[1])
			}
		}
	})
}

var (
	assignNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)
	jsonNameRE   = regexp.MustCompile(`^[A-Za-z0-9_. -]+$`)
)

// FuzzRedactJSON: JSON keeps its structure (valid JSON, the same keys in
// the same order) and the value of a secret key never survives, as a
// string or a number, at any depth.
func FuzzRedactJSON(f *testing.F) {
	f.Add("client_secret", "S4xyz", "note", "GITHUB_TOKEN=S1")
	f.Add("password", "SEKRET", "trace", "Bearer sekrit123")
	f.Fuzz(func(t *testing.T, name, value, other, text string) {
		if !isSecretName(name) || isSecretName(other) || len(value) < 4 || strings.Contains(name+other+Placeholder, value) || !utf8.ValidString(name) || !utf8.ValidString(value) || !utf8.ValidString(other) || !utf8.ValidString(text) {
			return
		}
		in, _ := json.Marshal([]any{map[string]any{name: value, other: text}, map[string]any{"n": []any{map[string]any{name: 1234567}}}})
		out := JSON(in)
		if !json.Valid(out) {
			t.Fatalf("JSON(%s) = %s: not JSON", in, out)
		}
		var v []map[string]any
		if err := json.Unmarshal(out, &v); err != nil || len(v) != 2 {
			t.Fatalf("JSON(%s) = %s: %v", in, out, err)
		}
		if v[0][name] != Placeholder {
			t.Fatalf("JSON(%s) = %s: %q kept", in, out, name)
		}
		if _, ok := v[0][other]; !ok {
			t.Fatalf("JSON(%s) = %s: key %q lost", in, out, other)
		}
		if got, want := v[0][other], Text(text); got != want && other != name {
			t.Fatalf("JSON(%s) = %s: %q is %q, want Text's %q", in, out, other, got, want)
		}
		if strings.Contains(string(out), "1234567") {
			t.Fatalf("JSON(%s) = %s: the secret number is kept", in, out)
		}
	})
}

// FuzzRedactShapes: the secret never survives the shapes that carry it
// without a NAME=VALUE pair — the argument after a flag with a secret name
// (--password S), USER:S after -u, ";jsessionid=S" in a URL, "token S",
// an AWS access key ID, a GitHub token, a YAML block value under a secret
// key, a YAML value in quotes, a YAML list of scalars under a secret key —
// and the lines around it, which Text leaves alone, stay as they were.
func FuzzRedactShapes(f *testing.F) {
	f.Add("password", "S1xyz123", uint8(0), "echo start", "done")
	f.Add("client-secret", "S2xyz123", uint8(1), "", "")
	f.Add("u", "S3xyz123", uint8(2), "x", "y")
	f.Add("jsessionid", "S4xyz123", uint8(3), "GET", "200")
	f.Add("token", "S5xyz123", uint8(4), "vault login", "ok")
	f.Add("AKIA", "IOSFODNN7EXAMPLE", uint8(5), "key", "in use")
	f.Add("ghp_", "abcdefghijklmnopqrstuvwxyz0123456789", uint8(6), "push", "now")
	f.Add("password", "S8xyz123", uint8(7), "db:", "user: x")
	f.Add("api_key", "S9xyz123", uint8(8), "config:", "port: 80")
	f.Add("tokens", "S10xyz12", uint8(9), "ci:", "next: 1")
	f.Fuzz(func(t *testing.T, name, value string, form uint8, before, after string) {
		if len(value) < 8 || strings.Contains(Placeholder, value) || !shapeValueRE.MatchString(value) {
			return
		}
		if strings.ContainsAny(before+after, "\n\r") || Text(before) != before || Text(after) != after || strings.Contains(before+after+name, value) {
			return // the lines around must be ones Text leaves alone
		}
		var in, want string
		switch form % 10 {
		case 0, 1: // argv: --NAME VALUE
			if !isSecretName(name) || !assignNameRE.MatchString(name) {
				return
			}
			flag := "--" + name
			if form%10 == 1 {
				flag = "-" + name
			}
			got := Argv([]string{before, flag, value, after})
			if strings.Contains(got[2], value) {
				t.Fatalf("Argv kept %s %q: %q", flag, value, got)
			}
			line := Argv([]string{"sh -c 'x " + flag + " " + value + " y'"})[0]
			if strings.Contains(line, value) {
				t.Fatalf("Argv kept %s %q in a command line: %q", flag, value, line)
			}
			return
		case 2: // argv: -u USER:VALUE
			if !assignNameRE.MatchString(name) {
				return
			}
			got := Argv([]string{before, "-u", name + ":" + value, "-u" + name + ":" + value, after})
			if strings.Contains(got[2]+got[3], value) {
				t.Fatalf("Argv kept -u %s:%q: %q", name, value, got)
			}
			return
		case 3: // ;NAME=VALUE in a URL
			if !isSecretName(name) || !assignNameRE.MatchString(name) || strings.Contains(value, "/") {
				return // a path parameter's value ends at the next '/': what follows is the next segment
			}
			in = "GET http://h/app;" + name + "=" + value + "?x=1"
			want = "GET http://h/app;" + name + "=" + Placeholder + "?x=1"
		case 4: // token VALUE
			if !strings.ContainsAny(value, "0123456789") {
				return
			}
			in, want = "token "+value, "token "+Placeholder
		case 5: // an AWS access key ID
			v := strings.ToUpper(value)
			if len(v) < 16 || !accessKeyRE.MatchString(v[:16]) {
				return
			}
			in, want = "AKIA"+v[:16], Placeholder
		case 6: // a GitHub token
			if len(value) < 36 || !ghTokenRE.MatchString(value) {
				return
			}
			in, want = "ghp_"+value, Placeholder
		case 8: // a YAML value in quotes
			if !isSecretName(name) || !assignNameRE.MatchString(name) {
				return
			}
			in, want = name+`: "`+value+`"`, name+`: "`+Placeholder+`"`
		case 9: // a YAML list of scalars under a secret key
			if !isSecretName(name) || !assignNameRE.MatchString(name) || strings.HasPrefix(after, " ") || strings.HasPrefix(after, "\t") || strings.HasPrefix(after, "- ") {
				return // an indented line or an item after the list is the list's
			}
			in = name + ":\n  - " + value + "\n  - " + value
			want = name + ":\n  - " + Placeholder + "\n  - " + Placeholder
		case 7: // a YAML block value
			if !isSecretName(name) || !assignNameRE.MatchString(name) || strings.HasPrefix(after, " ") || strings.HasPrefix(after, "\t") {
				return // an indented line after the block is the block's
			}
			in = name + ": |\n  " + value + "\n  " + value
			want = name + ": " + Placeholder + "\n  " + Placeholder + "\n  " + Placeholder
		}
		in = before + "\n" + in + "\n" + after
		want = before + "\n" + want + "\n" + after
		if got := Text(in); got != want {
			t.Fatalf("Text(%q)\n = %q\nwant %q", in, got, want)
		}
	})
}

var (
	shapeValueRE = regexp.MustCompile(`^[A-Za-z0-9._~+/]+$`)
	accessKeyRE  = regexp.MustCompile(`^[A-Z0-9]{16}$`)
	ghTokenRE    = regexp.MustCompile(`^[A-Za-z0-9]+$`)
)
