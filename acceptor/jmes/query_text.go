package jmes

import (
	"bytes"
	"fmt"
)

// writeText writes the result v as text, the way the AWS CLI's --output
// text writes scalars and lists, for shell variables: a string unquoted; a
// number or a boolean as JSON writes it; null as an empty line; an array
// one element per line, each element as text (a nested array or object as
// compact JSON); an object as compact JSON. Every line ends with a
// newline; an empty array writes nothing. The errors are writeJSON's.
func (q *Query) writeText(v any) ([]byte, error) {
	var b bytes.Buffer
	w := jsonWriter{b: &b}
	if list, ok := v.([]any); ok {
		for _, e := range list {
			textLine(&w, e)
		}
	} else {
		textLine(&w, v)
	}
	if w.bad != "" {
		return nil, fmt.Errorf("evaluating %q: the result holds %s, which JSON cannot represent", q.expr.src, w.bad)
	}
	return b.Bytes(), nil
}

func textLine(w *jsonWriter, v any) {
	switch v := v.(type) {
	case nil:
	case string:
		w.b.WriteString(v)
	default:
		w.value(v)
	}
	w.b.WriteByte('\n')
}
