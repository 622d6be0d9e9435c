package durable

import (
	"bytes"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeEncoded reads b when it is byte for byte what Encode writes of a
// state, and declines (false) anything else, which Decode then reads with
// encoding/json, errors and all. A state file is read by every invocation
// that continues a sequence, and encoding/json's reflective decoding of a
// full history (two passes: the version, then the state) was half a
// millisecond of CPU, more than the rest of the read.
//
// Whatever it returns, Encode writes exactly b (checked before it returns):
// b is then the canonical text of that state, which encoding/json reads as
// the same state — FuzzDecodeEncoded checks that on any input. Decode
// validates it as it validates encoding/json's.
func decodeEncoded(b []byte) (*State, bool) {
	d := decoder{b: b}
	s := new(State)
	if !d.object(func(key string) bool { return d.stateField(s, key) }) {
		return nil, false
	}
	if d.i != len(b)-1 || b[d.i] != '\n' {
		return nil, false
	}
	enc, err := Encode(s)
	if err != nil || !bytes.Equal(enc, b) {
		return nil, false
	}
	return s, true
}

// decoder reads the JSON that Encode writes: objects, arrays, strings,
// integers and null, between white space. Every method reports false on
// anything else; the decoder is not usable after that.
type decoder struct {
	b []byte
	i int
}

func (d *decoder) ws() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\n' || d.b[d.i] == '\t' || d.b[d.i] == '\r') {
		d.i++
	}
}

// byte consumes c, after white space.
func (d *decoder) byte(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// null consumes null, after white space, if it is there.
func (d *decoder) null() bool {
	d.ws()
	if bytes.HasPrefix(d.b[d.i:], []byte("null")) {
		d.i += 4
		return true
	}
	return false
}

// object reads an object, calling field with each key to read its value.
func (d *decoder) object(field func(key string) bool) bool {
	if !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return true
	}
	for {
		key, ok := d.str()
		if !ok || !d.byte(':') || !field(key) {
			return false
		}
		if d.byte('}') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

// array reads an array, calling elem for each element; null reads as
// nil (nilArray true).
func (d *decoder) array(elem func() bool) (nilArray, ok bool) {
	if d.null() {
		return true, true
	}
	if !d.byte('[') {
		return false, false
	}
	if d.byte(']') {
		return false, true
	}
	for {
		if !elem() {
			return false, false
		}
		if d.byte(']') {
			return false, true
		}
		if !d.byte(',') {
			return false, false
		}
	}
}

// str reads a string with JSON's escapes, but for surrogates (\uD800 to
// \uDFFF), which Encode never writes.
func (d *decoder) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) && d.b[d.i] != '"' && d.b[d.i] != '\\' && d.b[d.i] >= ' ' {
		d.i++
	}
	if d.i < len(d.b) && d.b[d.i] == '"' {
		d.i++
		return string(d.b[start : d.i-1]), true
	}
	out := append([]byte(nil), d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), true
		case c < ' ':
			return "", false
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", false
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok || utf16.IsSurrogate(r) {
				return "", false // Encode writes no surrogate escape
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (d *decoder) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	d.i += 4
	return rune(n), true
}

// int reads an integer that fits an int.
func (d *decoder) int() (int, bool) {
	d.ws()
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	n, err := strconv.Atoi(string(d.b[start:d.i]))
	return n, err == nil
}

// time reads a time as time.Time's UnmarshalJSON does (RFC 3339).
func (d *decoder) time(t *time.Time) bool {
	s, ok := d.str()
	if !ok {
		return false
	}
	v, err := time.Parse(time.RFC3339, s)
	*t = v
	return err == nil
}

// duration reads a Duration as its UnmarshalText does (no negative one:
// encoding/json then says what is wrong).
func (d *decoder) duration(v *Duration) bool {
	s, ok := d.str()
	if !ok {
		return false
	}
	n, err := time.ParseDuration(s)
	*v = Duration(n)
	return err == nil && n >= 0
}

func (d *decoder) intTo(v *int) bool {
	n, ok := d.int()
	*v = n
	return ok
}

func (d *decoder) strTo(v *string) bool {
	s, ok := d.str()
	*v = s
	return ok
}

func (d *decoder) stateField(s *State, key string) bool {
	switch key {
	case "version":
		return d.intTo(&s.Version)
	case "identity":
		return d.strTo(&s.Identity)
	case "command":
		s.Command = []string{}
		isNil, ok := d.array(func() bool {
			a, ok := d.str()
			s.Command = append(s.Command, a)
			return ok
		})
		if isNil {
			s.Command = nil
		}
		return ok
	case "status":
		v, ok := d.str()
		s.Status = Status(v)
		return ok
	case "scheduled_at":
		return d.time(&s.NextDue)
	case "remaining_attempts":
		s.Remaining = new(int)
		return d.intTo(s.Remaining)
	case "backoff":
		return d.duration(&s.Delay)
	case "max_backoff":
		return d.duration(&s.MaxBackoff)
	case "attempts":
		return d.intTo(&s.Attempts)
	case "max_attempts":
		return d.intTo(&s.MaxAttempts)
	case "started":
		return d.time(&s.Started)
	case "deadline":
		return d.time(&s.Deadline)
	case "pid":
		return d.intTo(&s.PID)
	case "exit_status":
		return d.intTo(&s.Exit)
	case "reason":
		return d.strTo(&s.Reason)
	case "history":
		s.History = []Entry{}
		isNil, ok := d.array(func() bool {
			s.History = append(s.History, Entry{})
			e := &s.History[len(s.History)-1]
			return d.object(func(key string) bool { return d.entryField(e, key) })
		})
		if isNil {
			s.History = nil
		}
		return ok
	}
	return false
}

func (d *decoder) entryField(e *Entry, key string) bool {
	switch key {
	case "attempt":
		return d.intTo(&e.Attempt)
	case "start":
		return d.time(&e.Start)
	case "duration":
		return d.duration(&e.Duration)
	case "result":
		return d.strTo(&e.Result)
	case "exit_code":
		return d.intTo(&e.ExitCode)
	case "http_status":
		return d.intTo(&e.Status)
	case "directive":
		return d.strTo(&e.Directive)
	case "acceptor":
		return d.strTo(&e.Acceptor)
	case "delay":
		return d.duration(&e.Delay)
	}
	return false
}
