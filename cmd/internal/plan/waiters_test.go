package plan

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/botocore"
	"github.com/retry-dev/retry/acceptor/jmes"
	"github.com/retry-dev/retry/acceptor/waitermodel"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
)

// Every built-in waiter loads with the acceptor package's botocore parser
// and evaluates an attempt whose output is {} without error: each model
// parses, each name resolves in both spellings, and each acceptor runs.
func TestEveryBuiltInWaiterLoadsAndRunsOnEmptyOutput(t *testing.T) {
	models, err := botocore.Models()
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != botocore.Services {
		t.Fatalf("%d models, want %d", len(models), botocore.Services)
	}
	waiters := 0
	for _, m := range models {
		mm, data, err := botocore.Service(m.Service)
		if err != nil {
			t.Fatal(err)
		}
		wf, err := waitermodel.Parse(data)
		if err != nil {
			t.Errorf("%s: %v", m.Service, err)
			continue
		}
		if len(wf.Names()) != len(m.Names) {
			t.Errorf("%s: the model has %d waiters, the index %d", m.Service, len(wf.Names()), len(m.Names))
		}
		for i, name := range m.Names {
			for _, spelling := range []string{name, m.CLINames[i]} {
				if got, err := mm.Resolve(spelling); err != nil || got != name {
					t.Errorf("%s: Resolve(%q) = %q, %v; want %q", m.Service, spelling, got, err, name)
				}
			}
			// The way retry wait loads it, from --waiter SERVICE:cli-name.
			o := newWait(&iostreams.IOStreams{ErrOut: devNull(t)}).options()
			o.Waiter.Name = m.Service + ":" + m.CLINames[i]
			w, err := o.loadWaiter()
			if err == nil && w.Name != name {
				t.Errorf("%s: loaded %s, want %s", o.Waiter.Name, w.Name, name)
			}
			if _, err := wf.Model(name); err != nil {
				t.Errorf("%s:%s: not in the model: %v", m.Service, name, err)
			}
			if err != nil {
				t.Errorf("%s:%s: %v", m.Service, name, err)
				continue
			}
			if w.MaxAttempts <= 0 || w.Delay <= 0 || len(w.Acceptors) == 0 {
				t.Errorf("%s:%s: %d attempts, delay %v, %d acceptors", m.Service, name, w.MaxAttempts, w.Delay, len(w.Acceptors))
			}
			chain := &acceptor.Chain{Acceptors: w.Acceptors, Fallback: acceptor.WaitFallback}
			chain.Decode = jmes.DecoderFor(chain)
			for _, a := range []*acceptor.Attempt{
				{Number: 1, Stdout: empty},
				{Number: 1, Failed: true, ExitCode: 254, ErrorCode: "SomethingElse", Stdout: empty},
			} {
				d := chain.Evaluate(a)
				if d.Directive == acceptor.NoDecision || len(d.Trace) == 0 {
					t.Errorf("%s:%s on {}: no decision", m.Service, name)
				}
				for _, w := range d.Warnings {
					t.Logf("%s:%s on {}: %s", m.Service, name, w)
				}
			}
			waiters++
		}
	}
	if waiters < 300 {
		t.Errorf("only %d waiters", waiters)
	}
	t.Logf("%d services, %d waiters, botocore %s", len(models), waiters, botocore.Version)
}

// empty opens {} as an attempt's stdout.
func empty() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("{}")), nil }

func devNull(t *testing.T) *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
