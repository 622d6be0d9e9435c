package durable

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Duration is a time.Duration written as Go writes durations ("1m30s").
type Duration time.Duration

// MarshalText writes d as time.Duration's String does.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a Go duration; a negative one is an error.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("bad duration %q", b)
	}
	if v < 0 {
		return fmt.Errorf("negative duration %q", b)
	}
	*d = Duration(v)
	return nil
}

// FormatDuration writes d the way retry's logs do: "40ms", "1m30s", "2h0m0s"
// rounded to the millisecond above one second.
func FormatDuration(d time.Duration) string {
	if d >= time.Second {
		d = d.Round(time.Millisecond)
	}
	return d.String()
}

// CorruptError is a state file that cannot be read as a state: not JSON,
// another format version, or values no retry writes. It is never taken as a
// new sequence, since that would retry past a limit the user set.
type CorruptError struct{ Problem string }

func (e *CorruptError) Error() string { return "corrupt state: " + e.Problem }

// current is s as Encode writes it: the current version, the attempts
// left when they are limited, and every time in UTC (machines that share a
// sequence may be in other zones).
func current(s *State) *State {
	c := *s
	c.Version, c.Remaining = FormatVersion, nil
	if n, limited := s.Left(); limited {
		c.Remaining = &n
	}
	c.NextDue, c.Started, c.Deadline = c.NextDue.UTC(), c.Started.UTC(), c.Deadline.UTC()
	c.History = make([]Entry, len(s.History))
	for i, e := range s.History {
		e.Start = e.Start.UTC()
		c.History[i] = e
	}
	return &c
}

// Decode reads a state written by Encode and checks that it is one retry
// could have written: the format version, a SHA-256 identity, a known
// status, attempt numbers that rise in the history and do not pass the
// count, no negative number. Anything else is a *CorruptError; Decode never
// panics, whatever b holds.
func Decode(b []byte) (*State, error) {
	s, version, err := decodeJSON(b)
	if err != nil {
		return nil, err
	}
	if err := s.validate(version); err != nil {
		return nil, &CorruptError{err.Error()}
	}
	s.Version, s.Remaining = FormatVersion, nil
	return s, nil
}

// decodeJSON reads b with encoding/json, in the version it says: a version
// 1 state is read as version 2 names its fields (upgrade1). It does not
// validate the state.
func decodeJSON(b []byte) (*State, int, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, 0, &CorruptError{"the file is empty"}
	}
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, 0, &CorruptError{"not JSON: " + jsonProblem(err)}
	}
	if probe.Version == nil {
		return nil, 0, &CorruptError{"no format version"}
	}
	switch *probe.Version {
	case FormatVersion:
	case 1:
		var err error
		if b, err = upgrade1(b); err != nil {
			return nil, 0, &CorruptError{err.Error()}
		}
	default:
		return nil, 0, &CorruptError{fmt.Sprintf("format version %d; this retry reads versions 1 and %d", *probe.Version, FormatVersion)}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s State
	if err := dec.Decode(&s); err != nil {
		return nil, 0, &CorruptError{jsonProblem(err)}
	}
	if dec.More() {
		return nil, 0, &CorruptError{"data after the JSON object"}
	}
	return &s, *probe.Version, nil
}

// upgrade1 renames version 1's fields as version 2 names them (next_due is
// scheduled_at, delay is backoff); version 1 had no remaining_attempts and
// no max_backoff (0: not known).
func upgrade1(b []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, errors.New("not a JSON object")
	}
	for _, k := range []string{"scheduled_at", "backoff", "remaining_attempts", "max_backoff"} {
		if _, ok := m[k]; ok {
			return nil, fmt.Errorf("unknown field %q in a version 1 state", k)
		}
	}
	for old, name := range map[string]string{"next_due": "scheduled_at", "delay": "backoff"} {
		if v, ok := m[old]; ok {
			m[name] = v
			delete(m, old)
		}
	}
	m["version"] = json.RawMessage("2")
	return json.Marshal(m)
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func (s *State) validate(version int) error {
	if len(s.Identity) != 64 {
		return fmt.Errorf("identity %q is not a SHA-256 in hex", s.Identity)
	}
	if _, err := hex.DecodeString(s.Identity); err != nil {
		return fmt.Errorf("identity %q is not a SHA-256 in hex", s.Identity)
	}
	switch s.Status {
	case Pending, Running, GivenUp, Failed:
	default:
		return fmt.Errorf("unknown status %q", s.Status)
	}
	switch {
	case s.Attempts < 0:
		return fmt.Errorf("attempts %d is negative", s.Attempts)
	case s.MaxAttempts < 0:
		return fmt.Errorf("max_attempts %d is negative", s.MaxAttempts)
	case s.PID < 0:
		return fmt.Errorf("pid %d is negative", s.PID)
	case s.Exit < 0 || s.Exit > 255:
		return fmt.Errorf("exit_status %d is not an exit status", s.Exit)
	case s.Status.Terminal() && s.Exit == 0:
		return fmt.Errorf("%s with exit_status 0", s.Status)
	case s.Status == Running && s.Attempts == 0:
		return errors.New("running with no attempt made")
	case s.Attempts > 0 && s.Started.IsZero():
		return errors.New("attempts made but no start time")
	case len(s.History) > MaxHistory:
		return fmt.Errorf("%d history entries, more than %d", len(s.History), MaxHistory)
	case len(s.History) > s.Attempts:
		return fmt.Errorf("%d history entries for %d attempts", len(s.History), s.Attempts)
	case s.History == nil:
		return errors.New("no history")
	case s.Attempts > 0 && len(s.History) == 0:
		return fmt.Errorf("%d attempts and no history", s.Attempts)
	}
	for i, e := range s.History {
		switch {
		case e.Attempt < 1 || e.Attempt > s.Attempts:
			return fmt.Errorf("history entry %d: attempt %d out of 1..%d", i+1, e.Attempt, s.Attempts)
		case i > 0 && e.Attempt <= s.History[i-1].Attempt:
			return fmt.Errorf("history entry %d: attempt %d does not follow attempt %d", i+1, e.Attempt, s.History[i-1].Attempt)
		case e.ExitCode < noExitCode || e.ExitCode > 255:
			return fmt.Errorf("history entry %d: exit_code %d is not an exit status", i+1, e.ExitCode)
		case e.Status < 0 || e.Status > 999:
			return fmt.Errorf("history entry %d: http_status %d is not an HTTP status", i+1, e.Status)
		case e.Directive == "":
			return fmt.Errorf("history entry %d: no directive", i+1)
		}
	}
	if n := len(s.History); n > 0 && s.History[n-1].Attempt != s.Attempts {
		return fmt.Errorf("the last history entry is attempt %d, not the last attempt %d", s.History[n-1].Attempt, s.Attempts)
	}
	if s.Status == Running && len(s.History) == 0 {
		return errors.New("running with no history")
	}
	if version >= 2 {
		left, limited := s.Left()
		switch {
		case limited && s.Remaining == nil:
			return fmt.Errorf("no remaining_attempts with max_attempts %d", s.MaxAttempts)
		case !limited && s.Remaining != nil:
			return fmt.Errorf("remaining_attempts %d with unlimited attempts (max_attempts 0)", *s.Remaining)
		case limited && *s.Remaining != left:
			return fmt.Errorf("remaining_attempts %d, but %d of %d attempts made leaves %d", *s.Remaining, s.Attempts, s.MaxAttempts, left)
		}
	}
	return nil
}

// isStringField reports whether k is a field of the format whose JSON
// value is a string: Fields stores them as they are, FromFields quotes them
// again. Every other field is stored as its JSON text. (A switch: a map
// literal would be built at every start of retry, --state or not.)
func isStringField(k string) bool {
	switch k {
	case "identity", "status", "scheduled_at", "backoff", "max_backoff", "started", "deadline", "reason":
		return true
	}
	return false
}

// Fields is s as the fields of a hash (a Redis key): each top-level field of
// the file format under the same name, a string as it is and anything else
// (numbers, the command, the history) as its JSON text. FromFields reads it
// back.
func Fields(s *State) (map[string]string, error) {
	b, err := json.Marshal(current(s))
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if isStringField(k) {
			var str string
			if err := json.Unmarshal(v, &str); err != nil {
				return nil, fmt.Errorf("field %s: %v", k, err)
			}
			out[k] = str
		} else {
			out[k] = string(v)
		}
	}
	return out, nil
}

// FromFields reads a state stored by Fields, checked as Decode checks a
// file; no fields at all is no state (nil, nil).
func FromFields(f map[string]string) (*State, error) {
	if len(f) == 0 {
		return nil, nil
	}
	m := make(map[string]json.RawMessage, len(f))
	for k, v := range f {
		if isStringField(k) {
			b, _ := json.Marshal(v)
			m[k] = b
			continue
		}
		if !json.Valid([]byte(v)) {
			return nil, &CorruptError{fmt.Sprintf("field %s: %q is not JSON", k, v)}
		}
		m[k] = json.RawMessage(v)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, &CorruptError{err.Error()}
	}
	return Decode(b)
}
