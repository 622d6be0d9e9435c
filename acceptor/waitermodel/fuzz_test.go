package waitermodel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

// FuzzParseWaiters: a waiter model, botocore or Smithy, either loads or is
// refused with an error; never a panic. Every name a model that loads
// lists gives a waiter with acceptors, and a Smithy waiter has a success
// acceptor (botocore's need not); a name it does not list gives an error.
// The seeds are the real models in testdata.
func FuzzParseWaiters(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/waiter-models/*.json")
	seeds = append(seeds, "testdata/smithy-model.json")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"version":2,"waiters":{"W":{"delay":1,"maxAttempts":2,"operation":"Op","acceptors":[{"matcher":"path","argument":"a","expected":true,"state":"success"}]}}}`))
	f.Add([]byte(`{"smithy":"2.0","shapes":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		wf, err := Parse(data)
		if err != nil {
			return
		}
		names := wf.Names()
		if _, err := wf.Model("\x00not a listed name"); err == nil {
			t.Fatalf("a name the model does not list gave a waiter")
		}
		for _, n := range names {
			w, err := wf.Model(n)
			if err != nil {
				t.Fatalf("Waiter(%q) of a listed name: %v", n, err)
			}
			if len(w.Acceptors) == 0 {
				t.Fatalf("waiter %s loaded without acceptors", n)
			}
			success := false
			for _, a := range w.Acceptors {
				success = success || a.State == acceptor.StateSuccess
			}
			if wf.Smithy && !success {
				t.Fatalf("Smithy waiter %s loaded without a success acceptor", n)
			}
		}
	})
}
