package redact

import "strings"

// yamlBlocks hides the values of secret YAML keys that span lines: a block
// scalar ("password: |" or ">-" and the lines indented under it), a plain
// scalar continued on the next lines ("password:" and an indented value
// that is not a mapping or a list) and a list of scalars ("tokens:" and
// "- S" items: each shows "- REDACTED"). The key line keeps its key; each
// hidden line keeps its indentation and shows the placeholder. So does a
// JSON list that is a secret key's value, nested or not (secretLists), and
// one the key's line leaves open, as pretty-printed JSON writes it
// ("tokens": [ and an item a line): the rest of the key's line from its
// "[", and every line indented more than the key's line, up to the first
// that is not (its "]").
func yamlBlocks(s string) string {
	lines := strings.SplitAfter(s, "\n")
	changed := false
	var y yamlState
	for i, l := range lines {
		if shown, _ := y.line(l); shown != l {
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
	active   bool // under a secret key whose value spans lines
	indent   int  // the key's column (a JSON list's: its line's indentation)
	block    bool // the value is a block scalar (| or >)
	first    bool // no line of the value seen yet
	list     bool // the value is a list of scalars
	jsonList bool // the value is a JSON list left open on the key's line
}

// line returns how line (with its line break, if any) shows; whole says
// that all of it is a hidden value's (no other rule has anything left to
// hide in it), rather than the rest of a key's line.
func (y *yamlState) line(l string) (shown string, whole bool) {
	if y.active {
		body := strings.TrimRight(l, "\r\n")
		if strings.TrimSpace(body) == "" {
			return l, false
		}
		in := len(body) - len(strings.TrimLeft(body, " \t"))
		if y.jsonList {
			if in > y.indent {
				return body[:in] + Placeholder + l[len(body):], true
			}
			y.active = false
			return y.keyLine(l)
		}
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
				return body[:in] + "- " + Placeholder + l[len(body):], true
			}
			return body[:in] + Placeholder + l[len(body):], true
		}
		y.active = false
	}
	return y.keyLine(l)
}

// keyLine is line for a line outside any value: it starts one when the
// line holds a secret key whose value is on the lines below.
func (y *yamlState) keyLine(l string) (shown string, whole bool) {
	if indent, block, ok := yamlSecretKey(l); ok {
		*y = yamlState{active: true, indent: indent, block: block, first: true}
		return l, false
	}
	body := strings.TrimRight(l, "\r\n")
	hidden, open := secretLists(body)
	if open {
		*y = yamlState{active: true, jsonList: true, indent: len(body) - len(strings.TrimLeft(body, " \t"))}
	}
	if hidden == body {
		return l, false
	}
	return hidden + l[len(body):], false
}

// secretLists hides, on body (a line without its break), the lists that
// are the values of quoted keys with secret names, nested or not: each to
// its closing "]", and one the line leaves open to the line's end (open:
// its items are on the lines below). The key's grammar is jsonKeys', whose
// flat list (what a regexp can match) closes on its line.
func secretLists(body string) (shown string, open bool) {
	var b strings.Builder
	done := 0
	for c := 0; c < len(body); c++ {
		i := strings.IndexByte(body[c:], ':')
		if i < 0 {
			break
		}
		c += i
		v := c + 1
		for v < len(body) && (body[v] == ' ' || body[v] == '\t') {
			v++
		}
		if v == len(body) || body[v] != '[' {
			continue
		}
		if name, ok := quotedKeyBefore(body, done, c); !ok || !isSecretName(name) {
			continue
		}
		e, depth := v, 0
		for ; e < len(body); e++ {
			if body[e] == '[' {
				depth++
			} else if body[e] == ']' {
				if depth--; depth == 0 {
					e++
					break
				}
			}
		}
		b.WriteString(body[done:v])
		b.WriteString(Placeholder)
		done = e
		if depth > 0 {
			open = true
			break
		}
		c = e - 1
	}
	if done == 0 {
		return body, false
	}
	b.WriteString(body[done:])
	return b.String(), open
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
