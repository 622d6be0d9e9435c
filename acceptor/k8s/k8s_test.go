package k8s

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/jmes"
	"github.com/retry-dev/retry/acceptor/waitermodel"
	"github.com/retry-dev/retry/internal/testdir"
)

// The objects of testdata are kubectl get -o json output, one file per
// state, in kubectl's own format (4-space indent, sorted keys): the
// scripts serve the same files through an API server stub to the real
// kubectl and compare its stdout with them.

// object reads testdata/NAME.json, optionally changed by edit (to reach a
// branch of kubectl's rules no recorded state reaches).
func object(t *testing.T, name string, edit func(o map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil {
		return string(b)
	}
	var o map[string]any
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	edit(o)
	b, err = json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// at returns the object at the dotted path p of o, creating objects on the
// way.
func at(o map[string]any, p string) map[string]any {
	for _, k := range strings.Split(p, ".") {
		next, ok := o[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			o[k] = next
		}
		o = next
	}
	return o
}

// stdoutAttempt is a kubectl get that exited 0 and printed out.
func stdoutAttempt(out string) *acceptor.Attempt {
	return &acceptor.Attempt{Number: 1, Stdout: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(out)), nil }}
}

// kubectlError is a kubectl get that failed with the error code
// acceptor/errorcode finds in its stderr.
func kubectlError(code string) *acceptor.Attempt {
	return &acceptor.Attempt{Number: 1, Failed: true, ExitCode: 1, ErrorCode: code}
}

// decide evaluates the chain retry wait builds for w alone, and says what
// decided: "success by acceptor 7", "retry (server-side) by fallback".
func decide(w *waitermodel.Model, a *acceptor.Attempt) string {
	c := &acceptor.Chain{Acceptors: w.Acceptors, Fallback: acceptor.WaitFallback}
	c.Decode = jmes.DecoderFor(c)
	d := c.Evaluate(a)
	if d.Source == acceptor.FromAcceptor {
		if strings.HasPrefix(d.Name, "k8s: ") {
			return fmt.Sprintf("%s by %s", d.Directive, d.Name)
		}
		return fmt.Sprintf("%s by acceptor %d", d.Directive, d.Acceptor+1-ownChecks(w))
	}
	return fmt.Sprintf("%s by %s", d.Directive, d.Source)
}

// olderCondition sets metadata.generation to 3 and the observedGeneration
// of o's condition of type typ to 2 (KEP-5067).
func olderCondition(typ string) func(o map[string]any) { return conditionGeneration(typ, 2) }

// currentCondition sets metadata.generation and the observedGeneration of
// o's condition of type typ to 3.
func currentCondition(typ string) func(o map[string]any) { return conditionGeneration(typ, 3) }

func conditionGeneration(typ string, observed int) func(o map[string]any) {
	return func(o map[string]any) {
		at(o, "metadata")["generation"] = 3
		for _, c := range at(o, "status")["conditions"].([]any) {
			if c := c.(map[string]any); c["type"] == typ {
				c["observedGeneration"] = observed
			}
		}
	}
}

// ownChecks is the number of acceptors of w written in Go before the
// model's (checks, and k8s:deleted's NotFound beside an object).
func ownChecks(w *waitermodel.Model) int {
	n := 0
	for n < len(w.Acceptors) && strings.HasPrefix(w.Acceptors[n].Name, "k8s: ") {
		n++
	}
	return n
}

// TestWaiters runs each waiter over the recorded objects, and over edited
// ones for the branches of kubectl's rollout rules no recorded state
// reaches: every acceptor of every waiter decides at least once.
func TestWaiters(t *testing.T) {
	t.Parallel()
	type step struct {
		name    string
		attempt func(t *testing.T) *acceptor.Attempt
		want    string
	}
	obj := func(name string) func(t *testing.T) *acceptor.Attempt {
		return func(t *testing.T) *acceptor.Attempt { return stdoutAttempt(object(t, name, nil)) }
	}
	edited := func(name string, edit func(o map[string]any)) func(t *testing.T) *acceptor.Attempt {
		return func(t *testing.T) *acceptor.Attempt { return stdoutAttempt(object(t, name, edit)) }
	}
	failed := func(code string) func(t *testing.T) *acceptor.Attempt {
		return func(*testing.T) *acceptor.Attempt { return kubectlError(code) }
	}
	const (
		notYet = "retry (server-side) by fallback"
		fails  = "failure by fallback"
		stale  = "retry (server-side) by k8s: a condition older than metadata.generation"
	)
	tests := map[string][]step{
		// kubectl rollout status: DeploymentStatusViewer.
		"deployment-rolled-out": {
			{"another kind", obj("job-complete"), "failure by acceptor 1"},
			{"a list", obj("list-empty"), "failure by acceptor 1"},
			{"no output", func(*testing.T) *acceptor.Attempt { return stdoutAttempt("") }, "failure by acceptor 1"},
			{"spec update not observed", obj("deployment-unobserved"), "retry (server-side) by acceptor 3"},
			{"never observed", edited("deployment-unobserved", func(o map[string]any) { delete(at(o, "status"), "observedGeneration") }), "retry (server-side) by acceptor 3"},
			{"progress deadline exceeded", obj("deployment-deadline-exceeded"), "failure by acceptor 4"},
			{"new replicas being updated", obj("deployment-progressing"), "retry (server-side) by acceptor 5"},
			{"old replicas pending termination", obj("deployment-old-replicas"), "retry (server-side) by acceptor 6"},
			{"updated replicas not available", obj("deployment-unavailable"), "retry (server-side) by acceptor 7"},
			{"rolled out", obj("deployment-rolled-out"), "success by acceptor 8"},
			{"scaled to zero", edited("deployment-rolled-out", func(o map[string]any) {
				at(o, "spec")["replicas"] = 0
				o["status"] = map[string]any{"observedGeneration": 2}
			}), "success by acceptor 8"},
			{"a number as a string", edited("deployment-rolled-out", func(o map[string]any) { at(o, "status")["updatedReplicas"] = "3" }), "failure by acceptor 2"},
			{"a number not whole", edited("deployment-rolled-out", func(o map[string]any) { at(o, "spec")["replicas"] = 2.5 }), "failure by acceptor 2"},
			{"deadline exceeded, a condition of an older generation", edited("deployment-deadline-exceeded", func(o map[string]any) {
				olderCondition("Progressing")(o)
				at(o, "status")["observedGeneration"] = 3
			}), stale},
			{"not found", failed("NotFound"), fails},
			{"forbidden", failed("Forbidden"), fails},
			{"API server unavailable", failed("ServiceUnavailable"), "retry (server-side) by fallback"},
			{"throttled", failed("TooManyRequests"), "retry (throttling) by fallback"},
		},
		// kubectl rollout status: StatefulSetStatusViewer.
		"statefulset-rolled-out": {
			{"another kind", obj("deployment-rolled-out"), "failure by acceptor 1"},
			{"OnDelete", obj("statefulset-on-delete"), "failure by acceptor 3"},
			{"spec update not observed", edited("statefulset-updating", func(o map[string]any) { at(o, "metadata")["generation"] = 4 }), "retry (server-side) by acceptor 4"},
			{"never observed", edited("statefulset-updating", func(o map[string]any) { delete(at(o, "status"), "observedGeneration") }), "retry (server-side) by acceptor 4"},
			{"pods not ready", edited("statefulset-updating", func(o map[string]any) { at(o, "status")["readyReplicas"] = 2 }), "retry (server-side) by acceptor 5"},
			{"partition being updated", obj("statefulset-updating"), "retry (server-side) by acceptor 6"},
			{"partition 2 updated", edited("statefulset-updating", func(o map[string]any) {
				at(o, "spec.updateStrategy.rollingUpdate")["partition"] = 2
			}), "success by acceptor 7"},
			{"rolled out", obj("statefulset-rolled-out"), "success by acceptor 7"},
			{"a partition as a string", edited("statefulset-updating", func(o map[string]any) {
				at(o, "spec.updateStrategy.rollingUpdate")["partition"] = "0"
			}), "failure by acceptor 2"},
			{"no rollingUpdate, revisions differ", edited("statefulset-updating", func(o map[string]any) {
				delete(at(o, "spec.updateStrategy"), "rollingUpdate")
			}), "retry (server-side) by acceptor 8"},
			{"no rollingUpdate, revision current", edited("statefulset-rolled-out", func(o map[string]any) {
				delete(at(o, "spec.updateStrategy"), "rollingUpdate")
			}), "success by acceptor 9"},
		},
		// kubectl rollout status: DaemonSetStatusViewer.
		"daemonset-rolled-out": {
			{"another kind", obj("statefulset-rolled-out"), "failure by acceptor 1"},
			{"OnDelete", edited("daemonset-rolled-out", func(o map[string]any) {
				o["spec"].(map[string]any)["updateStrategy"] = map[string]any{"type": "OnDelete"}
			}), "failure by acceptor 3"},
			{"spec update not observed", edited("daemonset-updating", func(o map[string]any) { at(o, "metadata")["generation"] = 3 }), "retry (server-side) by acceptor 4"},
			{"pods being updated", obj("daemonset-updating"), "retry (server-side) by acceptor 5"},
			{"updated pods not available", edited("daemonset-updating", func(o map[string]any) { at(o, "status")["updatedNumberScheduled"] = 3 }), "retry (server-side) by acceptor 6"},
			{"rolled out", obj("daemonset-rolled-out"), "success by acceptor 7"},
			{"a number as a string", edited("daemonset-rolled-out", func(o map[string]any) { at(o, "status")["numberAvailable"] = "3" }), "failure by acceptor 2"},
		},
		// The Job condition types of kubernetes/api batch/v1.
		"job-complete": {
			{"running", obj("job-running"), notYet},
			{"failed", obj("job-failed"), "failure by acceptor 1"},
			{"complete", obj("job-complete"), "success by acceptor 2"},
			{"failed, a condition of an older generation", edited("job-failed", olderCondition("Failed")), stale},
			{"complete, a condition of an older generation", edited("job-complete", olderCondition("Complete")), stale},
			{"complete, a condition of the current generation", edited("job-complete", currentCondition("Complete")), "success by acceptor 2"},
			{"-o json forgotten", func(*testing.T) *acceptor.Attempt {
				return stdoutAttempt("NAME   STATUS    COMPLETIONS   DURATION   AGE\npi     Running   0/1           3s         3s\n")
			}, "failure by k8s: stdout is not a JSON object"},
			{"-o yaml", func(*testing.T) *acceptor.Attempt { return stdoutAttempt("apiVersion: batch/v1\nkind: Job\n") }, "failure by k8s: stdout is not a JSON object"},
			{"another kind", obj("pod-ready"), "failure by acceptor 3"},
			{"forbidden", failed("Forbidden"), fails},
		},
		"job-finished": {
			{"running", obj("job-running"), notYet},
			{"complete", obj("job-complete"), "success by acceptor 1"},
			{"failed", obj("job-failed"), "success by acceptor 2"},
			{"another kind", obj("pod-ready"), "failure by acceptor 3"},
		},
		// PodPhase and the Ready condition of kubernetes/api core/v1.
		"pod-ready": {
			{"pending", obj("pod-pending"), notYet},
			{"crash-looping", obj("pod-crashloop"), notYet},
			{"failed", obj("pod-failed"), "failure by acceptor 1"},
			{"succeeded", obj("pod-succeeded"), "failure by acceptor 2"},
			{"ready", obj("pod-ready"), "success by acceptor 3"},
			{"ready, a condition of an older pod spec", edited("pod-ready", olderCondition("Ready")), stale},
			{"ready, a condition of the current pod spec", edited("pod-ready", currentCondition("Ready")), "success by acceptor 3"},
			{"another kind", obj("node-ready"), "failure by acceptor 4"},
		},
		"pvc-bound": {
			{"pending", obj("pvc-pending"), notYet},
			{"lost", obj("pvc-lost"), "failure by acceptor 1"},
			{"bound", obj("pvc-bound"), "success by acceptor 2"},
			{"another kind", obj("pod-ready"), "failure by acceptor 3"},
		},
		"node-ready": {
			{"not ready", obj("node-not-ready"), notYet},
			{"ready", obj("node-ready"), "success by acceptor 1"},
			{"ready, a condition of an older generation", edited("node-ready", olderCondition("Ready")), stale},
			{"another kind", obj("pod-ready"), "failure by acceptor 2"},
		},
		"crd-established": {
			{"installing", obj("crd-installing"), notYet},
			{"established", obj("crd-established"), "success by acceptor 1"},
			{"established, a condition of an older generation", edited("crd-established", olderCondition("Established")), stale},
			{"name conflict, a condition of an older generation", edited("crd-name-conflict", olderCondition("NamesAccepted")), stale},
			{"name conflict", obj("crd-name-conflict"), "failure by acceptor 2"},
			{"another kind", obj("node-ready"), "failure by acceptor 3"},
		},
		"service-load-balancer": {
			{"pending", obj("service-pending"), notYet},
			{"an IP", obj("service-load-balancer"), "success by acceptor 1"},
			{"a hostname", edited("service-pending", func(o map[string]any) {
				at(o, "status.loadBalancer")["ingress"] = []any{map[string]any{"hostname": "web.elb.example"}}
			}), "success by acceptor 1"},
			{"an ingress without an address", edited("service-pending", func(o map[string]any) {
				at(o, "status.loadBalancer")["ingress"] = []any{map[string]any{"ports": []any{}}}
			}), notYet},
			{"another kind", obj("pod-ready"), "failure by acceptor 2"},
			{"ClusterIP", obj("service-cluster-ip"), "failure by acceptor 3"},
		},
		"deleted": {
			{"still there", obj("deployment-rolled-out"), notYet},
			{"not found", failed("NotFound"), "success by acceptor 1"},
			{"not found, an empty List (kubectl get A B, both gone)", func(t *testing.T) *acceptor.Attempt {
				a := stdoutAttempt(object(t, "list-empty", nil))
				a.Failed, a.ExitCode, a.ErrorCode = true, 1, "NotFound"
				return a
			}, "success by acceptor 1"},
			{"not found beside an object still there (kubectl get A B)", func(t *testing.T) *acceptor.Attempt {
				a := stdoutAttempt(object(t, "list-empty", func(o map[string]any) { o["items"] = []any{map[string]any{"kind": "Deployment"}} }))
				a.Failed, a.ExitCode, a.ErrorCode = true, 1, "NotFound"
				return a
			}, "retry (server-side) by k8s: NotFound beside an object still there"},
			{"-o name", func(*testing.T) *acceptor.Attempt { return stdoutAttempt("deployment.apps/web\n") }, "failure by k8s: stdout is not a JSON object"},
			{"--ignore-not-found prints nothing", func(*testing.T) *acceptor.Attempt { return stdoutAttempt("") }, "success by acceptor 2"},
			{"a selector matches nothing", obj("list-empty"), "success by acceptor 2"},
			{"a selector still matches", edited("list-empty", func(o map[string]any) {
				o["items"] = []any{map[string]any{"kind": "Pod"}}
			}), notYet},
			{"forbidden", failed("Forbidden"), fails},
			{"unauthorized", failed("Unauthorized"), fails},
			{"refused", failed("ConnectionRefused"), "retry (client-side) by fallback"},
		},
	}
	_, cliNames := Names()
	for _, name := range cliNames {
		if _, ok := tests[name]; !ok {
			t.Errorf("k8s:%s has no test", name)
		}
	}
	for name, steps := range tests {
		w, err := Waiter(name)
		if err != nil {
			t.Fatal(err)
		}
		decided := map[int]bool{}
		for _, s := range steps {
			got := decide(w, s.attempt(t))
			if got != s.want {
				t.Errorf("k8s:%s, %s: %s, want %s", name, s.name, got, s.want)
			}
			var n int
			if _, err := fmt.Sscanf(got[strings.Index(got, " by acceptor ")+len(" by acceptor "):], "%d", &n); err == nil {
				decided[n] = true
			}
		}
		for i, a := range w.Acceptors[ownChecks(w):] {
			if !decided[i+1] {
				t.Errorf("k8s:%s: no test reaches acceptor %d (%s)", name, i+1, a.Name)
			}
		}
	}
}

// TestObjectsUsed checks that every recorded object is in a test above or
// a script (testdata/script/wait_k8s_*.txtar).
func TestObjectsUsed(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded objects: %v", err)
	}
	var text []byte
	for _, glob := range []string{"k8s_test.go", "../../testdata/script/wait_k8s_*.txtar"} {
		ms, _ := filepath.Glob(glob)
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			text = append(text, b...)
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if !strings.Contains(string(text), `"`+name+`"`) && !strings.Contains(string(text), name+".json") {
			t.Errorf("%s is used by no test and no script", f)
		}
	}
}

// TestModel checks the model against names and the timing the package
// documents: every waiter polls after 1s, at most 5s apart.
func TestModel(t *testing.T) {
	t.Parallel()
	f, err := waitermodel.Parse(model)
	if err != nil {
		t.Fatal(err)
	}
	modelNames, cliNames := Names()
	if got := f.Names(); !slices.Equal(got, modelNames) {
		t.Errorf("the model's waiters are %v; names lists %v", got, modelNames)
	}
	for _, n := range names {
		op, err := parseOperation(n.operation)
		if err != nil || !slices.Contains(op.Names(), n.model) {
			t.Errorf("operation %s: %v, waiters %v; want %s among them", n.operation, err, op.Names(), n.model)
		}
	}
	for i, n := range modelNames {
		for _, spelling := range []string{n, cliNames[i]} {
			w, err := Waiter(spelling)
			if err != nil {
				t.Errorf("Waiter(%q): %v", spelling, err)
				continue
			}
			if w.Name != n || !w.Smithy || w.MinDelay != time.Second || w.MaxDelay != 5*time.Second || w.Documentation == "" {
				t.Errorf("Waiter(%q) = %s, Smithy %t, delays %s–%s, documentation %q", spelling, w.Name, w.Smithy, w.MinDelay, w.MaxDelay, w.Documentation)
			}
		}
	}
	_, err = Waiter("pod-readyy")
	if want := `k8s has no waiter "pod-readyy"; it has crd-established, daemonset-rolled-out, deleted, deployment-rolled-out, job-complete, job-finished, node-ready, pod-ready, pvc-bound, service-load-balancer, statefulset-rolled-out`; err == nil || err.Error() != want {
		t.Errorf("Waiter(pod-readyy): %v, want %s", err, want)
	}
}

// BenchmarkWaiter is what naming a k8s: waiter costs a run: its
// operation parsed and its acceptors' expressions compiled. A run that
// names none pays nothing (the package has no init work). Whole parses
// the whole model, as --list-waiters never needs to.
func BenchmarkWaiter(b *testing.B) {
	b.Run("One", func(b *testing.B) {
		for b.Loop() {
			if _, err := Waiter("deployment-rolled-out"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Whole", func(b *testing.B) {
		for b.Loop() {
			if _, err := waitermodel.Parse(model); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestNoKubeconfig: kubectl's refused localhost:8080 is a failure when no
// kubeconfig exists (kubectl's fallback server), and polled when one does
// (a configured server that is starting) or when the refused server is
// another.
func TestNoKubeconfig(t *testing.T) {
	dir := testdir.New(t)
	config := filepath.Join(dir, "config")
	if err := os.WriteFile(config, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Waiter("pod-ready")
	if err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.ListSeparator)
	// Windows' kubectl also looks in %HOMEDRIVE%%HOMEPATH% and
	// %USERPROFILE%: empty here, so that HOME alone decides.
	t.Setenv("HOMEDRIVE", "")
	t.Setenv("HOMEPATH", "")
	t.Setenv("USERPROFILE", "")
	refused := func(server string) *acceptor.Attempt {
		a := kubectlError("ConnectionRefused")
		a.ErrorMessage = "The connection to the server " + server + " was refused"
		return a
	}
	for _, tc := range []struct {
		kubeconfig, home, server, want string
	}{
		{"", dir, "localhost:8080", "failure by k8s: no kubeconfig, localhost:8080 refused"},
		{filepath.Join(dir, "missing") + sep + filepath.Join(dir, "missing2"), dir, "localhost:8080", "failure by k8s: no kubeconfig, localhost:8080 refused"},
		{filepath.Join(dir, "missing") + sep + config, dir, "localhost:8080", "retry (client-side) by fallback"},
		{config, dir, "localhost:8080", "retry (client-side) by fallback"},
		{"", dir, "127.0.0.1:6443", "retry (client-side) by fallback"},
	} {
		t.Setenv("KUBECONFIG", tc.kubeconfig)
		t.Setenv("HOME", tc.home)
		if got := decide(w, refused(tc.server)); got != tc.want {
			t.Errorf("KUBECONFIG=%q HOME=%s, %s refused: %s, want %s", tc.kubeconfig, tc.home, tc.server, got, tc.want)
		}
	}
	// ~/.kube/config is kubectl's default.
	if err := os.MkdirAll(filepath.Join(dir, ".kube"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(config, filepath.Join(dir, ".kube", "config")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", "")
	if got, want := decide(w, refused("localhost:8080")), "retry (client-side) by fallback"; got != want {
		t.Errorf("~/.kube/config exists, localhost:8080 refused: %s, want %s", got, want)
	}
	// On Windows, kubectl finds %USERPROFILE%\.kube\config when HOME
	// names another directory, as client-go's homedir.HomeDir does.
	if runtime.GOOS == "windows" {
		t.Setenv("HOME", filepath.Join(dir, ".kube"))
		t.Setenv("USERPROFILE", dir)
		if got, want := decide(w, refused("localhost:8080")), "retry (client-side) by fallback"; got != want {
			t.Errorf("%%USERPROFILE%%\\.kube\\config exists, localhost:8080 refused: %s, want %s", got, want)
		}
	}
}
