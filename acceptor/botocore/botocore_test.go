package botocore

import (
	"io"
	"strings"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

// Every built-in waiter loads with the acceptor package's botocore parser
// and evaluates an attempt whose output is {} without error: each model
// parses, each name resolves in both spellings, and each acceptor runs.
func TestEveryBuiltInWaiterLoadsAndRunsOnEmptyOutput(t *testing.T) {
	models, err := Models()
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != Services {
		t.Fatalf("%d models, want %d", len(models), Services)
	}
	waiters := 0
	for _, m := range models {
		mm, data, err := Service(m.Service)
		if err != nil {
			t.Fatal(err)
		}
		wf, err := acceptor.ParseWaiters(data)
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
			w, err := wf.Waiter(name)
			if err != nil {
				t.Errorf("%s:%s: %v", m.Service, name, err)
				continue
			}
			if w.MaxAttempts <= 0 || w.Delay <= 0 || len(w.Acceptors) == 0 {
				t.Errorf("%s:%s: %d attempts, delay %v, %d acceptors", m.Service, name, w.MaxAttempts, w.Delay, len(w.Acceptors))
			}
			chain := &acceptor.Chain{Acceptors: w.Acceptors, Fallback: acceptor.WaitFallback}
			chain.Decode = acceptor.DecoderFor(chain)
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
	t.Logf("%d services, %d waiters, botocore %s", len(models), waiters, Version)
}

// empty opens {} as an attempt's stdout.
func empty() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("{}")), nil }

func TestResolveSpellings(t *testing.T) {
	m, _, err := Service("dynamodb")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"TableExists", "table-exists"} {
		if got, err := m.Resolve(name); err != nil || got != "TableExists" {
			t.Errorf("Resolve(%q) = %q, %v", name, got, err)
		}
	}
	if _, err := m.Resolve("tableexists"); err == nil {
		t.Error("Resolve(tableexists): want an error")
	}
	for alias, service := range map[string]string{"s3api": "s3", "S3": "s3", "deploy": "codedeploy"} {
		if m, _, err := Service(alias); err != nil || m.Service != service {
			t.Errorf("Service(%q) = %v, %v; want %s", alias, m, err, service)
		}
	}
	if _, _, err := Service("nosuch"); err == nil {
		t.Error("Service(nosuch): want an error")
	}
	m, _, _ = Service("ec2")
	if got, _ := m.Resolve("instance-status-ok"); got != "InstanceStatusOk" {
		t.Errorf("ec2 instance-status-ok = %q", got)
	}
	m, _, _ = Service("rds")
	if got, _ := m.Resolve("db-instance-available"); got != "DBInstanceAvailable" {
		t.Errorf("rds db-instance-available = %q", got)
	}
}
