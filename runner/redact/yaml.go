package redact

import "strings"

// yamlBlocks hides the values of secret YAML keys that span lines: a block
// scalar ("password: |" or ">-" and the lines indented under it), a plain
// scalar continued on the next lines ("password:" and an indented value
// that is not a mapping or a list) and a list of scalars ("tokens:" and
// "- S" items: each shows "- REDACTED"). The key line keeps its key; each
// hidden line keeps its indentation and shows the placeholder.
func yamlBlocks(s string) string {
	lines := strings.SplitAfter(s, "\n")
	changed := false
	var y yamlState
	for i, l := range lines {
		if shown := y.line(l); shown != l {
			lines[i] = shown
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "")
}

// yamlState reads YAML block values line by line (yamlBlocks): the lines
// it is given one after the other are the lines of one text, so that a
// value whose key came in an earlier piece is still hidden.
type yamlState struct {
	active bool // under a secret key whose value spans lines
	indent int  // the key's column
	block  bool // the value is a block scalar (| or >)
	first  bool // no line of the value seen yet
	list   bool // the value is a list of scalars
}

// line returns how line (with its line break, if any) shows.
func (y *yamlState) line(l string) string {
	if y.active {
		body := strings.TrimRight(l, "\r\n")
		if strings.TrimSpace(body) == "" {
			return l
		}
		in := len(body) - len(strings.TrimLeft(body, " \t"))
		item, isItem := strings.CutPrefix(strings.TrimSpace(body), "- ")
		// Under the key: indented more, or a list item at the key's own
		// indentation, as YAML allows for a list.
		under := in > y.indent || in == y.indent && isItem && !y.block && (y.first || y.list)
		if under && y.first && !y.block && isItem && !yamlStructure(strings.TrimSpace(item)) {
			y.list = true // a list of scalars under the key: each item is hidden
		}
		if under && (y.list || !(y.first && !y.block && yamlStructure(strings.TrimSpace(body)))) {
			// (a mapping or a list of mappings under the key: their own keys say what is secret)
			y.first = false
			if y.list && isItem {
				return body[:in] + "- " + Placeholder + l[len(body):]
			}
			return body[:in] + Placeholder + l[len(body):]
		}
		y.active = false
	}
	if indent, block, ok := yamlSecretKey(l); ok {
		*y = yamlState{active: true, indent: indent, block: block, first: true}
	}
	return l
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
	// The value first: most lines with a colon have one on the line.
	value = strings.TrimSpace(value)
	if i := strings.Index(value, " #"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	switch {
	case value == "":
	case (value[0] == '|' || value[0] == '>') && len(value) <= 3 && strings.Trim(value[1:], "+-123456789") == "":
		block = true
	default:
		return 0, false, false
	}
	if len(key) >= 2 && (key[0] == '"' || key[0] == '\'') && key[len(key)-1] == key[0] {
		key = key[1 : len(key)-1]
	}
	if strings.ContainsAny(key, " \t\"'{}[],&*#?|<>=!%@`") || !isSecretName(key) {
		return 0, false, false
	}
	return indent, block, true
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
