package durable_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/retry-dev/retry/runner/durable"
)

func sampleState() *durable.State {
	cfg := durable.Config{Identity: id, Command: []string{"job", "arg"}, MaxAttempts: 3}
	st := durable.New(cfg)
	now := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	n := st.Begin(now, cfg, 7)
	st.Finish(now.Add(time.Second), durable.Entry{Attempt: n, Start: now, Duration: durable.Duration(time.Second), Result: "exit status 1", ExitCode: 1, Directive: "retry (server-side)", Acceptor: "fallback", Delay: durable.Duration(2 * time.Second)}, durable.Scheduled, 1, "attempt 1: exit status 1")
	return st
}

func TestRoundTrip(t *testing.T) {
	b, err := durable.Encode(sampleState())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"version": 1`, `"status": "pending"`, `"delay": "2s"`, `"next_due": "2026-01-02T03:04:08.000006Z"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("encoded state lacks %s:\n%s", want, b)
		}
	}
	st, err := durable.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := durable.Encode(st)
	if !bytes.Equal(b, b2) {
		t.Errorf("round trip changed the state:\n%s\n%s", b, b2)
	}
}

// Decode refuses what no retry writes, saying what is wrong.
func TestDecodeCorrupt(t *testing.T) {
	good, _ := durable.Encode(sampleState())
	edit := func(old, new string) []byte { return bytes.Replace(good, []byte(old), []byte(new), 1) }
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"empty":          {nil, "the file is empty"},
		"blank":          {[]byte(" \n"), "the file is empty"},
		"not json":       {[]byte("attempts=3"), "not JSON"},
		"truncated":      {good[:len(good)/2], "not JSON"},
		"no version":     {[]byte(`{"status":"pending"}`), "no format version"},
		"newer":          {edit(`"version": 1`, `"version": 2`), "format version 2"},
		"unknown field":  {edit(`"status"`, `"colour": 1, "status"`), "unknown field"},
		"bad identity":   {edit(id, "xyz"), "not a SHA-256"},
		"bad status":     {edit(`"status": "pending"`, `"status": "sleeping"`), `unknown status "sleeping"`},
		"negative":       {edit(`"attempts": 1`, `"attempts": -1`), "negative"},
		"history > made": {edit(`"attempts": 1`, `"attempts": 0`), "history entries for 0 attempts"},
		"bad duration":   {edit(`"delay": "2s"`, `"delay": "soon"`), `bad duration "soon"`},
		"bad time":       {edit(`"next_due": "2026`, `"next_due": "x2026`), "parsing time"},
		"exit status":    {edit(`"exit_status": 1`, `"exit_status": 300`), "not an exit status"},
		"trailing":       {append(append([]byte{}, good...), "{}"...), "after top-level value"},
		"last entry":     {edit(`"attempts": 1`, `"attempts": 2`), "not the last attempt 2"},
		"ended, exit 0":  {bytes.Replace(edit(`"status": "pending"`, `"status": "failed"`), []byte(`"exit_status": 1`), []byte(`"exit_status": 0`), 1), "failed with exit_status 0"},
	} {
		_, err := durable.Decode(c.b)
		var ce *durable.CorruptError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a corrupt state: …%s…", name, err, c.want)
		}
	}
}

// FuzzDecode: Decode never panics; what it accepts encodes to a state it
// accepts again, unchanged.
func FuzzDecode(f *testing.F) {
	good, _ := durable.Encode(sampleState())
	f.Add(good)
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":1,"identity":"` + id + `","command":[],"status":"running","attempts":1,"started":"2026-01-01T00:00:00Z","history":[{"attempt":1,"start":"2026-01-01T00:00:00Z","duration":"0s","result":"","exit_code":-1,"directive":"unfinished"}],"delay":"0s","exit_status":0}`))
	f.Add([]byte(""))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := durable.Decode(b)
		if err != nil {
			var ce *durable.CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *CorruptError", err)
			}
			return
		}
		enc, err := durable.Encode(st)
		if err != nil {
			t.Fatal(err)
		}
		st2, err := durable.Decode(enc)
		if err != nil {
			t.Fatalf("re-decoding what Decode accepted: %v\n%s", err, enc)
		}
		enc2, _ := durable.Encode(st2)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("not stable:\n%s\n%s", enc, enc2)
		}
		st.Shown(time.Now(), nil)
		st.Left()
	})
}
