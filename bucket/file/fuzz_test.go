package file

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/retry-dev/retry/bucket"
)

// FuzzParseScopeState feeds the scope file reader anything a file may
// hold: it never fails or panics, and what it returns is a usable state
// (tokens within capacity, an adaptive state the limiter can work from)
// that reads back the same once written.
func FuzzParseScopeState(f *testing.F) {
	for _, seed := range []string{
		"",
		"garbage",
		`{"version":1,"bucket":{"capacity":500,"available":42,"refilled_at":"2026-01-01T00:00:00Z"}}`,
		`{"version":1,"bucket":{"capacity":500,"available":-5}}`,
		`{"version":2,"bucket":{"capacity":500,"available":3}}`,
		`{"version":1,"bucket":{"capacity":5,"available":900}}` + "\n" + `,"available":499}}`,
		`{"version":1,"bucket":{"capacity":500,"available":500},"adaptive":{"enabled":true,"fill_rate":0,"capacity":0}}`,
		`{"version":1,"bucket":{"available":1e400}}`,
		`{"version":1,"bucket":{"available":3},"adaptive":{"enabled":true,"fill_rate":2,"capacity":2,"tokens":1,"measured_rate":1e308,"calculated_rate":-1}}`,
	} {
		f.Add([]byte(seed), 500)
	}
	now := time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte, capacity int) {
		if capacity <= 0 || capacity > 1<<20 {
			capacity = bucket.DefaultCapacity
		}
		st := parseScopeState(data, capacity, now)
		if st.Version != scopeVersion || st.Bucket.Capacity != capacity {
			t.Fatalf("version %d capacity %d", st.Version, st.Bucket.Capacity)
		}
		if st.Bucket.Available < 0 || st.Bucket.Available > capacity {
			t.Fatalf("available %d outside [0, %d]", st.Bucket.Available, capacity)
		}
		if st.Adaptive != nil && !st.Adaptive.Valid() {
			t.Fatalf("invalid adaptive state kept: %+v", *st.Adaptive)
		}
		q := st.Bucket
		q.Refill(now.Add(time.Hour))
		if q.Available < 0 || q.Available > capacity {
			t.Fatalf("refill left %d outside [0, %d]", q.Available, capacity)
		}
		st.info("s", now)
		out, err := json.Marshal(st)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		again := parseScopeState(out, capacity, now)
		a, b := again.Bucket, st.Bucket
		if a.Capacity != b.Capacity || a.Available != b.Available || !a.RefilledAt.Equal(b.RefilledAt) || (again.Adaptive == nil) != (st.Adaptive == nil) {
			t.Fatalf("round trip changed the state: %+v → %+v", st.Bucket, again.Bucket)
		}
	})
}
