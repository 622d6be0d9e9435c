package waiters

import (
	"strings"
	"testing"

	"github.com/retry-dev/retry/acceptor/waitermodel"
)

// Every waiter of every built-in family loads by both of its names, and
// the family that holds a service is found whatever its case or alias.
func TestBuiltinCatalog(t *testing.T) {
	total := 0
	for _, f := range Builtin {
		services, err := f.Services()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range services {
			got, err := Builtin.Family(strings.ToUpper(s))
			if err != nil || got != f {
				t.Fatalf("Family(%q) = %v, %v; want %T", strings.ToUpper(s), got, err, f)
			}
			names, err := f.Names(s)
			if err != nil || len(names) == 0 {
				t.Fatalf("%T.Names(%q) = %v, %v", f, s, names, err)
			}
			total += len(names)
			if testing.Short() && total > 40 {
				continue
			}
			for _, n := range names {
				for _, spelling := range []string{n.Model, n.CLI} {
					w, err := f.Waiter(s, spelling)
					if err != nil {
						t.Fatalf("%s:%s: %v", s, spelling, err)
					}
					if w.Name != n.Model {
						t.Errorf("%s:%s is waiter %s, want %s", s, spelling, w.Name, n.Model)
					}
				}
			}
		}
	}
	if total < 200 {
		t.Errorf("%d built-in waiters, want the botocore and Kubernetes ones", total)
	}
	if f, err := Builtin.Family("s3api"); err != nil || f != (Botocore{}) {
		t.Errorf("s3api (the AWS CLI's name of s3): %v, %v", f, err)
	}
	if _, err := Builtin.Family("nosuch"); err == nil || !strings.Contains(err.Error(), `no built-in waiters for service "nosuch"`) {
		t.Errorf("an unknown service: %v", err)
	}
	if _, err := (Kubernetes{}).Waiter("k8s", "nope"); err == nil || !strings.Contains(err.Error(), "pod-ready") {
		t.Errorf("an unknown Kubernetes waiter: %v, want the list", err)
	}
}

// A model file is a family that holds every service.
func TestFileFamily(t *testing.T) {
	wf, err := waitermodel.Parse([]byte(`{"version": 2, "waiters": {"Up": {"operation": "Get", "delay": 1, "maxAttempts": 2,
		"acceptors": [{"state": "success", "matcher": "path", "argument": "a", "expected": "b"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	f := File{File: wf}
	if !f.Holds("anything") {
		t.Error("a file family holds every service")
	}
	names, _ := f.Names("")
	if len(names) != 1 || names[0].Model != "Up" || f.Count(1, 1) != "1 waiter" {
		t.Errorf("names %v, count %q", names, f.Count(1, 1))
	}
	if w, err := f.Waiter("svc", "Up"); err != nil || w.Name != "Up" {
		t.Errorf("Waiter: %v, %v", w, err)
	}
}
