package waitermodel

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"
)

// botocoreWaiterNames is a python program: for every waiters-2.json the
// installed botocore ships, the names of the waiters botocore's own
// WaiterModel loads from it (every acceptor built), as JSON {path: [names]}.
const botocoreWaiterNames = `
import glob, json, os, sys
import botocore, botocore.waiter
data = os.path.join(os.path.dirname(botocore.__file__), "data")
out = {}
for path in sorted(glob.glob(os.path.join(data, "*", "*", "waiters-2.json"))):
    with open(path) as f:
        m = botocore.waiter.WaiterModel(json.load(f))
    for name in m.waiter_names:
        m.get_waiter(name).acceptors
    out[path] = sorted(m.waiter_names)
json.dump(out, sys.stdout)
`

// TestBotocoreShippedWaiters loads every waiter file the installed python
// botocore ships and lists the waiters botocore lists, each with its
// acceptors: files with no waiters included. Skipped without python3 and
// botocore.
func TestBotocoreShippedWaiters(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: botocore's waiter files are not compared")
	}
	out, err := exec.Command(py, "-c", botocoreWaiterNames).Output()
	if err != nil {
		t.Skipf("python botocore is not installed (pip install botocore): %v", err)
	}
	var files map[string][]string
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&files); err != nil {
		t.Fatal(err)
	}
	waiters, empty := 0, 0
	for path, want := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(data)
		if err != nil {
			t.Errorf("%s: botocore loads it, retry refuses it: %v", path, err)
			continue
		}
		if got := f.Names(); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s: waiters %q, botocore's %q", path, got, want)
		}
		for _, n := range want {
			if _, err := f.Model(n); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		}
		waiters += len(want)
		if len(want) == 0 {
			empty++
		}
	}
	t.Logf("botocore's waiter files: %d (%d without waiters), %d waiters, every one loaded", len(files), empty, waiters)
}
