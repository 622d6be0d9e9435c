package redact

import (
	"bytes"
	"encoding/json"
)

// JSON returns the JSON text b with its secrets hidden, whatever built it
// (a map, a typed struct, a slice of either): every string value as Text
// hides secrets in it, and the value of every key whose name is secret
// (isSecretName: "client_secret", "password", "token") replaced by
// "REDACTED" when it is a string or a number, and so is every string and
// number in a list that is such a key's value ("tokens": ["S1", "S2"]);
// an object's own keys say what in it is secret. Keys, structure, order and
// layout stay as they are; a string is re-encoded only when its text
// changed. Text that is not valid JSON is returned as Text hides it.
func JSON(b []byte) []byte {
	if !json.Valid(b) {
		return []byte(Text(string(b)))
	}
	var out bytes.Buffer
	// stack holds, per open container, whether it is an object; inKey says
	// the next string of the innermost object is a key.
	var stack []bool
	inKey := false
	secretKey := false // the value being read belongs to a secret key
	secretList := 0    // inside a list that is a secret key's value: its depth, else 0
	last := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '{':
			stack = append(stack, true)
			inKey, secretKey = true, false
		case '[':
			stack = append(stack, false)
			if secretKey && secretList == 0 {
				secretList = len(stack)
			}
			secretKey = false
		case '}', ']':
			if len(stack) == secretList {
				secretList = 0
			}
			stack = stack[:len(stack)-1]
			inKey, secretKey = false, false
		case ',':
			inKey = len(stack) > 0 && stack[len(stack)-1]
			secretKey = false
		case ':':
			inKey = false
		case '"':
			end := stringEnd(b, i)
			lit := b[i:end]
			if inKey {
				var k string
				_ = json.Unmarshal(lit, &k)
				secretKey = isSecretName(k)
				i = end - 1
				continue
			}
			var s string
			_ = json.Unmarshal(lit, &s)
			repl := Text(s)
			if secretKey || secretList > 0 {
				repl = Placeholder
			}
			if repl != s {
				out.Write(b[last:i])
				enc, _ := json.Marshal(repl)
				out.Write(enc)
				last = end
			}
			secretKey = false
			i = end - 1
		default:
			if (secretKey || secretList > 0) && (c == '-' || c >= '0' && c <= '9') {
				j := i
				for j < len(b) && bytes.IndexByte([]byte("+-.eE0123456789"), b[j]) >= 0 {
					j++
				}
				out.Write(b[last:i])
				out.WriteString(`"` + Placeholder + `"`)
				last = j
				secretKey = false
				i = j - 1
			}
		}
	}
	if last == 0 {
		return b
	}
	out.Write(b[last:])
	return out.Bytes()
}

// stringEnd returns the offset just past the JSON string starting at
// b[i] (a quote), in valid JSON.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}
