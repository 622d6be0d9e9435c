package redact

import (
	"strconv"
	"strings"
)

// Message hides the secrets in a message of retry's own (a usage error, an
// error of a run) that quotes the values it was given, as Go's %q writes
// them: `--retry: "3": invalid JMESPath expression "3": …`. It hides
// values, not the message's words:
//
//   - every quoted value is hidden as Text hides text ("Authorization:
//     Bearer S" → "Authorization: REDACTED"), and wholly when the flag or
//     variable just before it has a secret name (`--api-key: "S"`,
//     `RETRY_TOKEN (for --token): "S"`);
//   - outside the quotes, URLs, Bearer and Basic credentials, PEM private
//     keys and NAME=VALUE pairs are hidden as Text hides them, but not
//     "Name: value", which in a message is its own structure (the flag, the
//     value, the problem: "Invalid token: tNumber" is a parser's word, not
//     a header).
func Message(s string) string {
	var b strings.Builder
	rest := s
	changed := false
	for {
		i := strings.IndexByte(rest, '"')
		if i < 0 {
			break
		}
		end := quotedEnd(rest, i)
		if end < 0 {
			break
		}
		lit := rest[i:end]
		v, err := strconv.Unquote(lit)
		if err != nil {
			b.WriteString(words(rest[:i+1]))
			rest = rest[i+1:]
			changed = true
			continue
		}
		shown := Text(v)
		if secretBefore(rest[:i]) && v != "" {
			shown = Placeholder
		}
		b.WriteString(words(rest[:i]))
		if shown == v {
			b.WriteString(lit)
		} else {
			b.WriteString(strconv.Quote(shown))
		}
		rest = rest[end:]
		changed = true
	}
	if !changed {
		return words(s)
	}
	b.WriteString(words(rest))
	return b.String()
}

// quotedEnd returns the offset just past the Go-quoted string that starts
// at s[i] (a double quote), or -1 when it does not end.
func quotedEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// secretBefore reports whether text ends with a flag or variable with a
// secret name and its separator: "--api-key: ", "--token=", "RETRY_TOKEN
// (for --token): ".
func secretBefore(text string) bool {
	t := strings.TrimRight(text, " ")
	t = strings.TrimRight(t, ":=")
	if strings.HasSuffix(t, ")") {
		if i := strings.LastIndex(t, "(for "); i >= 0 {
			t = t[i+len("(for ") : len(t)-1]
		}
	}
	j := len(t)
	for j > 0 && isNameByte(t[j-1]) {
		j--
	}
	name := t[j:]
	flag := strings.HasPrefix(name, "-") || strings.HasPrefix(strings.ToUpper(name), "RETRY_")
	return flag && isSecretName(name)
}

// isNameByte reports whether c can be part of a flag or variable name.
func isNameByte(c byte) bool {
	return c == '-' || c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// words hides the secrets in the words of a message (Message): every rule
// of Text but "Name: value" and JSON keys.
func words(s string) string { return text(s, false) }

// NamesSecret reports whether an expression (a JMESPath path such as
// Credentials.SecretAccessKey, length(Tokens), "api-key") names a secret:
// one of its names, as IsSecretName reads them, is secret. Its value is
// then hidden wherever retry shows it, as the value of a secret key is.
func NamesSecret(expr string) bool {
	for _, name := range strings.FieldsFunc(expr, func(r rune) bool {
		return !(r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r >= 0x80)
	}) {
		if isSecretName(name) {
			return true
		}
	}
	return false
}
