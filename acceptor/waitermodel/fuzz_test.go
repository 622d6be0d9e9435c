package waitermodel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

// FuzzParseWaiters: a waiter model, botocore or Smithy, either loads or is
// refused with an error; never a panic. A model that loads has waiters, and
// every name it lists gives a waiter with a success acceptor. The seeds are
// the real models in testdata.
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
		if len(names) == 0 {
			t.Fatalf("a model without waiters loaded")
		}
		for _, n := range names {
			w, err := wf.Model(n)
			if err != nil {
				t.Fatalf("Waiter(%q) of a listed name: %v", n, err)
			}
			success := false
			for _, a := range w.Acceptors {
				success = success || a.State == acceptor.StateSuccess
			}
			if !success {
				t.Fatalf("waiter %s loaded without a success acceptor", n)
			}
		}
	})
}
