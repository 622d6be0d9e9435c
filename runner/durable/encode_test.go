package durable

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// marshalIndent is what Encode must write: encoding/json's indented
// encoding of the state as the file holds it, with a final newline.
func marshalIndent(t *testing.T, s *State) []byte {
	t.Helper()
	b, err := json.MarshalIndent(current(s), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func checkEncode(t *testing.T, s *State) {
	t.Helper()
	want := marshalIndent(t, s)
	got, err := Encode(s)
	if err != nil {
		t.Fatalf("Encode: %v\nencoding/json wrote:\n%s", err, want)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode wrote\n%s\nencoding/json writes\n%s", got, want)
	}
}

// Encode writes what encoding/json writes, byte for byte, for every shape a
// field can take: present and omitted (omitempty, omitzero), nil and empty
// slices, limited and unlimited attempts, times in other zones and with or
// without nanoseconds, negative numbers, and strings that encoding/json
// escapes (quotes, backslashes, control characters, <, > and &, U+2028,
// U+2029, invalid UTF-8) or keeps (non-ASCII, DEL).
func TestEncodeIsEncodingJSON(t *testing.T) {
	for name, s := range encodeCases() {
		t.Run(name, func(t *testing.T) { checkEncode(t, s) })
	}
}

// encodeCases are states of every shape a field can take, by name.
func encodeCases() map[string]*State {
	zone := time.FixedZone("UTC-7", -7*3600)
	t0 := time.Date(2026, 11, 25, 15, 4, 5, 123456789, zone)
	odd := "a\"b\\c\x00\x01\b\f\n\r\t\x1f<>&\u2028\u2029é€😀\x7f\xff\xc3(end"
	full := func() *State {
		three := 3
		return &State{Version: 1, Identity: strings.Repeat("ab", 32), Command: []string{"sh", "-c", odd, ""},
			Status: Running, NextDue: t0.Add(90 * time.Second), Remaining: &three, Delay: Duration(1500 * time.Millisecond),
			MaxBackoff: Duration(2 * time.Hour), Attempts: 2, MaxAttempts: 5, Started: t0, Deadline: t0.Add(24 * time.Hour),
			PID: 4242, Exit: 137, Reason: odd,
			History: []Entry{
				{Attempt: 1, Start: t0, Duration: Duration(3 * time.Microsecond), Result: "HTTP 503", ExitCode: -1, Status: 503,
					Directive: "retry (server-side)", Acceptor: odd, Delay: Duration(time.Second)},
				{Attempt: 2, Start: t0.Add(time.Second).Round(time.Second), Result: "running", ExitCode: noExitCode, Directive: Unfinished},
			}}
	}
	changes := map[string]func(s *State){
		"every field": func(*State) {},
		"new":         func(s *State) { *s = *New(Config{Identity: s.Identity, Command: []string{"true"}}) },
		"omitted fields": func(s *State) {
			s.NextDue, s.Started, s.Deadline, s.PID, s.Reason = time.Time{}, time.Time{}, time.Time{}, 0, ""
		},
		"unlimited":        func(s *State) { s.MaxAttempts = 0 },
		"given up":         func(s *State) { s.Status, s.Attempts, s.MaxAttempts = GivenUp, 7, 5 },
		"nil slices":       func(s *State) { s.Command, s.History = nil, nil },
		"empty slices":     func(s *State) { s.Command, s.History = []string{}, []Entry{} },
		"negative numbers": func(s *State) { s.Attempts, s.MaxAttempts, s.PID, s.Exit, s.History[0].Status = -1, -2, -3, -4, -5 },
		"zero entry":       func(s *State) { s.History = []Entry{{}} },
		"year 0 and 9999": func(s *State) {
			s.Started, s.Deadline = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
		},
		"status is a string":   func(s *State) { s.Status = Status(odd) },
		"long durations":       func(s *State) { s.Delay, s.MaxBackoff = Duration(1<<63-1), Duration(-time.Nanosecond) },
		"a history of 100":     func(s *State) { s.History = make([]Entry, MaxHistory) },
		"wall clock with mono": func(s *State) { s.NextDue = time.Now() },
	}
	cases := make(map[string]*State, len(changes))
	for name, change := range changes {
		s := full()
		change(s)
		cases[name] = s
	}
	return cases
}

// A year encoding/json refuses is refused by Encode too.
func TestEncodeRefusesWhatEncodingJSONRefuses(t *testing.T) {
	s := New(Config{Identity: strings.Repeat("0", 64)})
	s.Started = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := json.Marshal(current(s)); err == nil {
		t.Fatal("encoding/json accepts the year 10000")
	}
	if b, err := Encode(s); err == nil {
		t.Errorf("Encode of the year 10000: %s, want an error", b)
	}
}

// FuzzEncode: whatever the strings, numbers and times, Encode writes what
// encoding/json writes.
func FuzzEncode(f *testing.F) {
	f.Add("sh", "exit status 1", "<&>\u2028\xff", int64(1764083045123456789), int64(2e9), 3, 503, true)
	f.Add("", "", "", int64(0), int64(0), 0, 0, false)
	f.Fuzz(func(t *testing.T, arg, result, reason string, unixNano, delay int64, n, status int, limited bool) {
		when := time.Unix(0, unixNano)
		s := New(Config{Identity: strings.Repeat("f", 64), Command: []string{arg, result}})
		s.Reason, s.Delay, s.Attempts, s.PID = reason, Duration(delay), n, n
		if limited {
			s.MaxAttempts = n + 1
		}
		s.NextDue, s.Started = when, when.Add(time.Duration(delay))
		s.History = append(s.History, Entry{Attempt: n, Start: when, Duration: Duration(delay), Result: result,
			ExitCode: n, Status: status, Directive: arg, Acceptor: reason, Delay: Duration(-delay)})
		checkEncode(t, s)
	})
}
