package durable_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/retry-dev/retry/backoff"
	"github.com/retry-dev/retry/runner/durable"
)

func sampleState() *durable.State {
	cfg := durable.Config{Identity: id, Command: []string{"job", "arg"}, MaxAttempts: 3,
		Backoff: backoff.WithCap(backoff.Exponential(2*time.Second, 2), 20*time.Second)}
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
	for _, want := range []string{`"version": 2`, `"status": "pending"`, `"backoff": "2s"`, `"scheduled_at": "2026-01-02T03:04:08.000006Z"`,
		`"remaining_attempts": 2`, `"max_backoff": "20s"`} {
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

// A version 1 file (next_due, delay; no remaining_attempts, no
// max_backoff) reads as the same sequence, written back as version 2.
func TestDecodeVersion1(t *testing.T) {
	v1 := `{"version": 1, "identity": "` + id + `", "command": ["job", "arg"], "status": "pending",
		"attempts": 1, "max_attempts": 3, "started": "2026-01-02T03:04:05.000006Z",
		"next_due": "2026-01-02T03:04:08.000006Z", "delay": "2s", "exit_status": 1,
		"reason": "attempt 1: exit status 1", "history": [{"attempt": 1, "start": "2026-01-02T03:04:05.000006Z",
		"duration": "1s", "result": "exit status 1", "exit_code": 1, "directive": "retry (server-side)",
		"acceptor": "fallback", "delay": "2s"}]}`
	st, err := durable.Decode([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	want := sampleState()
	want.MaxBackoff = 0 // version 1 did not record it
	got, _ := durable.Encode(st)
	wantB, _ := durable.Encode(want)
	if !bytes.Equal(got, wantB) {
		t.Errorf("version 1 read as\n%s\nwant\n%s", got, wantB)
	}
	if st.Version != durable.FormatVersion || st.Previous() != 2*time.Second || !st.NextDue.Equal(time.Date(2026, 1, 2, 3, 4, 8, 6000, time.UTC)) {
		t.Errorf("version 1 read as version %d, delay %v, next due %v", st.Version, st.Previous(), st.NextDue)
	}
}

// Fields stores every field of the file format under its name, strings as
// they are, the rest as JSON; FromFields reads the same state back.
func TestFields(t *testing.T) {
	st := sampleState()
	f, err := durable.Fields(st)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := durable.Encode(st)
	var file map[string]any
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if len(f) != len(file) {
		t.Errorf("%d fields, the file has %d: %v", len(f), len(file), f)
	}
	for k, v := range file {
		if str, ok := v.(string); ok {
			if f[k] != str {
				t.Errorf("field %s = %q, the file's %q", k, f[k], str)
			}
			continue
		}
		var got any
		if err := json.Unmarshal([]byte(f[k]), &got); err != nil || !reflect.DeepEqual(got, v) {
			t.Errorf("field %s = %q, the file's %v", k, f[k], v)
		}
	}
	for k, want := range map[string]string{"scheduled_at": "2026-01-02T03:04:08.000006Z", "remaining_attempts": "2",
		"backoff": "2s", "max_backoff": "20s", "status": "pending", "command": `["job","arg"]`} {
		if f[k] != want {
			t.Errorf("field %s = %q, want %q", k, f[k], want)
		}
	}
	back, err := durable.FromFields(f)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := durable.Encode(back)
	if !bytes.Equal(b, b2) {
		t.Errorf("FromFields(Fields) changed the state:\n%s\n%s", b, b2)
	}
	if st, err := durable.FromFields(nil); st != nil || err != nil {
		t.Errorf("FromFields(nil) = %v, %v; want no state", st, err)
	}
	f["attempts"] = "one"
	var ce *durable.CorruptError
	if _, err := durable.FromFields(f); !errors.As(err, &ce) || !strings.Contains(err.Error(), `field attempts: "one" is not JSON`) {
		t.Errorf("a field that is not JSON: %v", err)
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
		"newer":          {edit(`"version": 2`, `"version": 3`), "format version 3"},
		"remaining":      {edit(`"remaining_attempts": 2`, `"remaining_attempts": 5`), "remaining_attempts 5, but 1 of 3 attempts made leaves 2"},
		"no remaining":   {edit(`"remaining_attempts": 2,`, ``), "no remaining_attempts"},
		"v1 with v2":     {edit(`"version": 2`, `"version": 1`), `unknown field "scheduled_at" in a version 1 state`},
		"unknown field":  {edit(`"status"`, `"colour": 1, "status"`), "unknown field"},
		"bad identity":   {edit(id, "xyz"), "not a SHA-256"},
		"bad status":     {edit(`"status": "pending"`, `"status": "sleeping"`), `unknown status "sleeping"`},
		"negative":       {edit(`"attempts": 1`, `"attempts": -1`), "negative"},
		"history > made": {edit(`"attempts": 1`, `"attempts": 0`), "history entries for 0 attempts"},
		"bad duration":   {edit(`"backoff": "2s"`, `"backoff": "soon"`), `bad duration "soon"`},
		"bad max":        {edit(`"max_backoff": "20s"`, `"max_backoff": "-1s"`), `negative duration "-1s"`},
		"bad time":       {edit(`"scheduled_at": "2026`, `"scheduled_at": "x2026`), "parsing time"},
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

// Times are written in UTC, whatever zone the invocation ran in.
func TestEncodeUTC(t *testing.T) {
	st := sampleState()
	zone := time.FixedZone("UTC+2", 2*3600)
	st.NextDue, st.Started = st.NextDue.In(zone), st.Started.In(zone)
	st.History[0].Start = st.History[0].Start.In(zone)
	b, err := durable.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"scheduled_at": "2026-01-02T03:04:08.000006Z"`, `"started": "2026-01-02T03:04:05.000006Z"`, `"start": "2026-01-02T03:04:05.000006Z"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("encoded state lacks %s:\n%s", want, b)
		}
	}
	if bytes.Contains(b, []byte("+02:00")) {
		t.Errorf("a time in another zone than UTC:\n%s", b)
	}
}

// A state file an earlier release wrote (testdata/written: by its
// encoder, and by its binary for a scheduled retry, a run given up and
// an HTTP call) is read, and written back as the same state: byte for
// byte, but for invalid UTF-8, which both releases write as \ufffd and
// then, once read as U+FFFD, as that character.
func TestStateFilesOfEarlierReleases(t *testing.T) {
	files, err := filepath.Glob("testdata/written/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no state files in testdata/written: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		st, err := durable.Decode(b)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		again, err := durable.Encode(st)
		if err != nil {
			t.Fatalf("%s: Encode: %v", file, err)
		}
		st2, err := durable.Decode(again)
		if err != nil || !reflect.DeepEqual(st2, st) {
			t.Errorf("%s: written back as\n%s\nwhich reads as another state (%v)", file, again, err)
		}
		if !bytes.Contains(b, []byte(`\ufffd`)) && !bytes.Equal(again, b) {
			t.Errorf("%s: written back as\n%s\nwant\n%s", file, again, b)
		}
	}
}
