package durable

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// checkDecodeEncoded: when decodeEncoded takes b, encoding/json reads b as
// the same state; it reports whether decodeEncoded took it.
func checkDecodeEncoded(t *testing.T, b []byte) bool {
	t.Helper()
	got, ok := decodeEncoded(b)
	if !ok {
		return false
	}
	want, version, err := decodeJSON(b)
	if err != nil || version != FormatVersion {
		t.Fatalf("decodeEncoded took what encoding/json reads as version %d, %v:\n%s", version, err, b)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeEncoded read\n%+v\nencoding/json reads\n%+v\nfrom\n%s", got, want, b)
	}
	return true
}

// What Encode writes is read back without encoding/json, as encoding/json
// reads it, but for a negative duration (which Decode refuses, through
// encoding/json, as it always did) and invalid UTF-8 (written as \ufffd,
// read back as U+FFFD, which Encode writes as it is); anything else is
// left to encoding/json: another layout, a field Encode would write
// otherwise, unknown fields, version 1.
func TestDecodeEncoded(t *testing.T) {
	for name, s := range encodeCases() {
		b, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		took := checkDecodeEncoded(t, b)
		if want := name != "long durations" && !bytes.Contains(b, []byte(`\ufffd`)); took != want {
			t.Errorf("%s: decodeEncoded took it: %v, want %v", name, took, want)
		}
	}
	valid := encodeCases()["every field"]
	valid.Reason, valid.Command[2], valid.History[0].Acceptor = "<&>\u2028\u2029\x01\x7f\b\f\n\r\t\"\\/", "é😀", "acceptor"
	b, _ := Encode(valid)
	if !checkDecodeEncoded(t, b) {
		t.Fatalf("decodeEncoded did not take\n%s", b)
	}
	for name, other := range map[string][]byte{
		"compact":              bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\n"), nil), []byte(": "), []byte(":")),
		"no final newline":     bytes.TrimSuffix(b, []byte("\n")),
		"data after":           append(bytes.Clone(b), "{}\n"...),
		"wrong remaining":      bytes.Replace(b, []byte(`"remaining_attempts": 3`), []byte(`"remaining_attempts": 2`), 1),
		"unknown field":        bytes.Replace(b, []byte(`"pid": 4242`), []byte(`"pid": 4242, "x": 1`), 1),
		"version 1":            bytes.Replace(b, []byte(`"version": 2`), []byte(`"version": 1`), 1),
		"escaped slash":        bytes.Replace(b, []byte(`"sh"`), []byte(`"s\/h"`), 1),
		"time with an offset":  bytes.Replace(b, []byte(`"started": "2026-11-25T22:04:05.123456789Z"`), []byte(`"started": "2026-11-25T15:04:05.123456789-07:00"`), 1),
		"leading zero":         bytes.Replace(b, []byte(`"attempts": 2`), []byte(`"attempts": 02`), 1),
		"a surrogate pair":     bytes.Replace(b, []byte(`😀`), []byte(`\ud83d\ude00`), 1),
		"a zero delay written": bytes.Replace(b, []byte(`"directive": "unfinished"`), []byte(`"directive": "unfinished",`+"\n"+`      "delay": "0s"`), 1),
	} {
		if bytes.Equal(other, b) {
			t.Fatalf("%s: the change did not apply", name)
		}
		if checkDecodeEncoded(t, other) {
			t.Errorf("%s: decodeEncoded took it:\n%s", name, other)
		}
	}
}

// Decode of what Encode writes takes the state back whole (the fields
// Encode writes, Remaining left out as Decode leaves it).
func TestDecodeOfEncode(t *testing.T) {
	s := New(Config{Identity: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", Command: []string{"job", "<&>"}, MaxAttempts: 150})
	now := time.Date(2026, 11, 25, 16, 0, 0, 0, time.UTC)
	for i := range 120 {
		n := s.Begin(now, Config{Identity: s.Identity, Command: s.Command, MaxAttempts: 150}, 99)
		s.Finish(now.Add(time.Second), Entry{Attempt: n, Start: now, Duration: Duration(time.Second), Result: "exit status 1",
			ExitCode: 1, Directive: "retry (server-side)", Acceptor: "fallback", Delay: Duration(time.Duration(i) * time.Millisecond)},
			Scheduled, 1, "attempt: exit status 1")
		now = now.Add(time.Minute)
	}
	b, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if !checkDecodeEncoded(t, b) {
		t.Fatalf("decodeEncoded did not take a state of 120 attempts:\n%s", b)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("Decode(Encode(s)) =\n%+v\nwant\n%+v", got, s)
	}
}

// FuzzDecodeEncoded: whatever decodeEncoded takes, encoding/json reads as
// the same state.
func FuzzDecodeEncoded(f *testing.F) {
	for _, s := range encodeCases() {
		b, _ := Encode(s)
		f.Add(b)
	}
	f.Add([]byte("{}\n"))
	f.Add([]byte(`{"version": 2, "command": ["\u00e9\n", "\ud83d\ude00"], "history": [{"attempt": 1}]}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecodeEncoded(t, b)
	})
}
