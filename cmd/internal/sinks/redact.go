package sinks

import (
	"reflect"

	"github.com/retry-dev/retry/runner/redact"
)

// redactStrings hides secrets (redact.Text) in every string that v, a
// pointer to one of the types of the JSON log or the report, holds, at any
// depth: struct fields, slices, map values, pointers. It changes v in
// place: the lines and the report are built of copies (headerOf, the
// trace's copy), never of what the attempt keeps. One walk for every type,
// so that a field added to the schema is redacted without being named
// here.
func redactStrings(v any) { redactValue(reflect.ValueOf(v)) }

func redactValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			redactValue(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				redactValue(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			redactValue(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			redactValue(e)
			v.SetMapIndex(k, e)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(redact.Text(v.String()))
		}
	}
}
