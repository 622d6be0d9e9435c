package durable

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// Encode writes s as indented JSON with a final newline, in the current
// format version, remaining_attempts computed.
//
// The bytes are appended by hand, not through encoding/json: retry writes
// a state once or twice per process, and encoding/json's first Marshal of a
// type builds its encoders by reflection and touches code nothing else on
// that path runs — about a tenth of what --state adds to a first-attempt
// success (bench/state.sh, perf). The output is byte for byte what
// json.MarshalIndent(current(s), "", "  ") writes, which
// TestEncodeIsEncodingJSON and FuzzEncode check; a time encoding/json
// refuses (a year outside 0..9999, which no clock gives) is left to it,
// error included.
func Encode(s *State) ([]byte, error) {
	c := current(s)
	if !encodableTimes(c) {
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	}
	return appendState(make([]byte, 0, 512+320*len(c.History)), c), nil
}

// encodableTimes reports whether every time Encode writes of c is one
// time.Time's MarshalJSON accepts (a year in 0..9999; c is in UTC).
func encodableTimes(c *State) bool {
	ok := func(t time.Time) bool { y := t.Year(); return y >= 0 && y <= 9999 }
	for _, t := range []time.Time{c.NextDue, c.Started, c.Deadline} {
		if !t.IsZero() && !ok(t) {
			return false
		}
	}
	for i := range c.History {
		if !ok(c.History[i].Start) {
			return false
		}
	}
	return true
}

// appendState appends c as json.MarshalIndent(c, "", "  ") writes it: the
// fields in State's order under their tags, omitempty and omitzero as
// tagged, nil slices as null.
func appendState(b []byte, c *State) []byte {
	b = append(b, "{\n  \"version\": "...)
	b = strconv.AppendInt(b, int64(c.Version), 10)
	b = AppendJSONString(appendKey(b, 1, "identity"), c.Identity)
	b = appendKey(b, 1, "command")
	if c.Command == nil {
		b = append(b, "null"...)
	} else if len(c.Command) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, '[')
		for i, a := range c.Command {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(appendIndent(b, 2), a)
		}
		b = append(appendIndent(b, 1), ']')
	}
	b = AppendJSONString(appendKey(b, 1, "status"), string(c.Status))
	if !c.NextDue.IsZero() {
		b = appendTime(appendKey(b, 1, "scheduled_at"), c.NextDue)
	}
	if c.Remaining != nil {
		b = strconv.AppendInt(appendKey(b, 1, "remaining_attempts"), int64(*c.Remaining), 10)
	}
	b = AppendJSONString(appendKey(b, 1, "backoff"), time.Duration(c.Delay).String())
	b = AppendJSONString(appendKey(b, 1, "max_backoff"), time.Duration(c.MaxBackoff).String())
	b = strconv.AppendInt(appendKey(b, 1, "attempts"), int64(c.Attempts), 10)
	b = strconv.AppendInt(appendKey(b, 1, "max_attempts"), int64(c.MaxAttempts), 10)
	if !c.Started.IsZero() {
		b = appendTime(appendKey(b, 1, "started"), c.Started)
	}
	if !c.Deadline.IsZero() {
		b = appendTime(appendKey(b, 1, "deadline"), c.Deadline)
	}
	if c.PID != 0 {
		b = strconv.AppendInt(appendKey(b, 1, "pid"), int64(c.PID), 10)
	}
	b = strconv.AppendInt(appendKey(b, 1, "exit_status"), int64(c.Exit), 10)
	if c.Reason != "" {
		b = AppendJSONString(appendKey(b, 1, "reason"), c.Reason)
	}
	b = appendKey(b, 1, "history")
	if c.History == nil {
		b = append(b, "null"...)
	} else if len(c.History) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, '[')
		for i := range c.History {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendEntry(appendIndent(b, 2), &c.History[i])
		}
		b = append(appendIndent(b, 1), ']')
	}
	return append(b, "\n}\n"...)
}

// appendEntry appends e as an object of the history (depth 2), as
// json.MarshalIndent writes it.
func appendEntry(b []byte, e *Entry) []byte {
	b = append(b, "{\n      \"attempt\": "...)
	b = strconv.AppendInt(b, int64(e.Attempt), 10)
	b = appendTime(appendKey(b, 3, "start"), e.Start)
	b = AppendJSONString(appendKey(b, 3, "duration"), time.Duration(e.Duration).String())
	b = AppendJSONString(appendKey(b, 3, "result"), e.Result)
	b = strconv.AppendInt(appendKey(b, 3, "exit_code"), int64(e.ExitCode), 10)
	if e.Status != 0 {
		b = strconv.AppendInt(appendKey(b, 3, "http_status"), int64(e.Status), 10)
	}
	b = AppendJSONString(appendKey(b, 3, "directive"), e.Directive)
	if e.Acceptor != "" {
		b = AppendJSONString(appendKey(b, 3, "acceptor"), e.Acceptor)
	}
	if e.Delay != 0 {
		b = AppendJSONString(appendKey(b, 3, "delay"), time.Duration(e.Delay).String())
	}
	return append(appendIndent(b, 2), '}')
}

// appendKey ends the previous member and starts the member key at depth.
func appendKey(b []byte, depth int, key string) []byte {
	b = appendIndent(append(b, ','), depth)
	b = append(b, '"')
	b = append(b, key...)
	return append(b, "\": "...)
}

// appendIndent starts a line at depth (two spaces a level).
func appendIndent(b []byte, depth int) []byte {
	b = append(b, '\n')
	for range depth {
		b = append(b, "  "...)
	}
	return b
}

// appendTime appends t (in UTC, a year in 0..9999) as time.Time's
// MarshalJSON writes it: RFC 3339 with the nanoseconds it has.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// AppendJSONString appends s as a JSON string the way encoding/json writes
// one by default: ", \ and the control characters escaped (\b \f \n \r \t,
// else \u00XX), <, > and & as \u003c \u003e \u0026, U+2028 and U+2029
// escaped, and each byte of invalid UTF-8 as \ufffd. Encode writes the
// state's strings with it, and cmd the command line its identity hashes.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
