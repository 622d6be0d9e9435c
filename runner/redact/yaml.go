package redact

import "strings"

// yamlBlocks hides the values of secret YAML keys that span lines: a block
// scalar ("password: |" or ">-" and the lines indented under it) and a
// plain scalar continued on the next lines ("password:" and an indented
// value that is not a mapping or a list). The key line keeps its key; each
// hidden line keeps its indentation and shows the placeholder.
func yamlBlocks(s string) string {
	lines := strings.SplitAfter(s, "\n")
	changed := false
	for i := 0; i < len(lines); i++ {
		indent, block, ok := yamlSecretKey(lines[i])
		if !ok {
			continue
		}
		j := i + 1
		first := true
		for ; j < len(lines); j++ {
			l := lines[j]
			body := strings.TrimRight(l, "\r\n")
			if strings.TrimSpace(body) == "" {
				continue
			}
			in := len(body) - len(strings.TrimLeft(body, " \t"))
			if in <= indent {
				break
			}
			if first && !block && yamlStructure(strings.TrimSpace(body)) {
				break // a mapping or a list under the key: its own keys say what is secret
			}
			first = false
			lines[j] = body[:in] + Placeholder + l[len(body):]
			changed = true
		}
		i = j - 1
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "")
}

// yamlSecretKey reports whether line is a YAML key with a secret name
// whose value is on the lines below: "  password: |", "token: >-",
// "- secret:"; indent is the key's column, block whether a block
// indicator (| or >) introduces the value.
func yamlSecretKey(line string) (indent int, block, ok bool) {
	body := strings.TrimRight(line, "\r\n")
	trimmed := strings.TrimLeft(body, " ")
	indent = len(body) - len(trimmed)
	if rest, found := strings.CutPrefix(trimmed, "- "); found {
		indent += 2
		trimmed = strings.TrimLeft(rest, " ")
	}
	key, value, found := strings.Cut(trimmed, ":")
	if !found || key == "" {
		return 0, false, false
	}
	if len(key) >= 2 && (key[0] == '"' || key[0] == '\'') && key[len(key)-1] == key[0] {
		key = key[1 : len(key)-1]
	}
	if strings.ContainsAny(key, " \t\"'{}[],&*#?|<>=!%@`") || !isSecretName(key) {
		return 0, false, false
	}
	value = strings.TrimSpace(value)
	if i := strings.Index(value, " #"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	if value == "" {
		return indent, false, true
	}
	if (value[0] == '|' || value[0] == '>') && len(value) <= 3 && strings.Trim(value[1:], "+-123456789") == "" {
		return indent, true, true
	}
	return 0, false, false
}

// yamlStructure reports whether a line under a key starts a mapping
// ("user: x") or a list ("- x") rather than a scalar's text.
func yamlStructure(s string) bool {
	if s == "-" || strings.HasPrefix(s, "- ") {
		return true
	}
	k, _, found := strings.Cut(s, ":")
	return found && k != "" && !strings.ContainsAny(k, " \t") && (len(s) == len(k)+1 || s[len(k)+1] == ' ')
}
