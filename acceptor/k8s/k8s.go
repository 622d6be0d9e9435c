// Package k8s holds retry's built-in Kubernetes waiters, for --waiter
// k8s:NAME over the output of `kubectl get KIND NAME -o json`: one Smithy
// JSON model, waiters.json, embedded in the binary and parsed only when a
// k8s: waiter is named or listed (the package has no init work: a run that
// names none pays nothing).
//
// The rules are kubectl's and the Kubernetes API's, read in their sources
// and written again as acceptors: the rollout waiters follow kubectl's
// `rollout status` (kubernetes/kubectl pkg/polymorphichelpers/
// rollout_status.go, one acceptor per branch of its status viewers, in
// its order); the condition and phase waiters use the condition types and
// phases of kubernetes/api (batch/v1 JobConditionType, core/v1 PodPhase,
// PersistentVolumeClaimPhase, NodeReady). Unlike `kubectl wait`, each
// waiter also has failure states: a failed Job, a Deployment past its
// progress deadline, a Pod that has terminated.
//
// Every waiter polls after 1s, then with the Smithy waiter backoff up to
// 5s between attempts: an API server answers a get in milliseconds, and
// objects change in seconds. --delay, --max-delay and --backoff override
// them, as for every waiter.
package k8s

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/waitermodel"
)

// Service is the prefix of the built-in Kubernetes waiters:
// --waiter k8s:deployment-rolled-out.
const Service = "k8s"

//go:embed waiters.json
var model []byte

// names are the waiters of waiters.json, sorted, each with the name
// --waiter gives it (kebab-case, with the kinds spelled as kubectl's
// resource names: statefulset, daemonset, pvc, crd) and the operation
// shape that holds it. A test checks them against the model.
var names = [...]struct{ model, cli, operation string }{
	{"CRDEstablished", "crd-established", "GetCustomResourceDefinition"},
	{"DaemonSetRolledOut", "daemonset-rolled-out", "GetDaemonSet"},
	{"Deleted", "deleted", "GetObject"},
	{"DeploymentRolledOut", "deployment-rolled-out", "GetDeployment"},
	{"JobComplete", "job-complete", "GetJob"},
	{"JobFinished", "job-finished", "GetJob"},
	{"NodeReady", "node-ready", "GetNode"},
	{"PVCBound", "pvc-bound", "GetPersistentVolumeClaim"},
	{"PodReady", "pod-ready", "GetPod"},
	{"ServiceLoadBalancer", "service-load-balancer", "GetService"},
	{"StatefulSetRolledOut", "statefulset-rolled-out", "GetStatefulSet"},
}

// namespace is the Smithy namespace of the model's shapes.
const namespace = "retry.k8s#"

// Names returns the waiters' names as in the model (DeploymentRolledOut),
// sorted, and the same waiters' names as --waiter spells them after k8s:
// (deployment-rolled-out).
func Names() (modelNames, cliNames []string) {
	for _, n := range names {
		modelNames = append(modelNames, n.model)
		cliNames = append(cliNames, n.cli)
	}
	return modelNames, cliNames
}

// Waiter returns the model of the waiter called name, given as --waiter
// spells it after k8s: (pod-ready) or as in the model (PodReady). An
// unknown name is an error that lists the waiters.
//
// Only the operation that holds the waiter is parsed, its expressions
// compiled: 0.2 ms, where the whole model takes 1.7 ms (BenchmarkWaiter).
func Waiter(name string) (*waitermodel.Model, error) {
	i := slices.IndexFunc(names[:], func(n struct{ model, cli, operation string }) bool {
		return name == n.cli || name == n.model
	})
	if i < 0 {
		list := make([]string, len(names))
		for i, n := range names {
			list[i] = n.cli
		}
		slices.Sort(list)
		return nil, fmt.Errorf("%s has no waiter %q; it has %s", Service, name, strings.Join(list, ", "))
	}
	f, err := parseOperation(names[i].operation)
	if err != nil {
		return nil, fmt.Errorf("built-in Kubernetes waiters: %v", err)
	}
	w, err := f.Model(names[i].model)
	if err != nil {
		return nil, err
	}
	own := w.Acceptors
	if names[i].model == "Deleted" {
		// NotFound counts only when stdout holds no object; beside one
		// that is still there, the wait goes on.
		own[0].Matcher = notFoundOnly(own[0].Matcher)
		own = append([]acceptor.Acceptor{{State: acceptor.StateRetry, Matcher: acceptor.MatcherFunc(someStillThere),
			Name: "k8s: NotFound beside an object still there"}}, own...)
	}
	for _, c := range conditionsRead {
		if c.model == names[i].model {
			own = append([]acceptor.Acceptor{{State: acceptor.StateRetry, Matcher: acceptor.MatcherFunc(staleCondition(c.kind, c.types)),
				Name: "k8s: a condition older than metadata.generation"}}, own...)
		}
	}
	w.Acceptors = append(checks(names[i].cli), own...)
	return w, nil
}

// parseOperation parses the model reduced to one operation shape.
func parseOperation(op string) (*waitermodel.File, error) {
	var m struct {
		Smithy string                     `json:"smithy"`
		Shapes map[string]json.RawMessage `json:"shapes"`
	}
	if err := json.Unmarshal(model, &m); err != nil {
		return nil, err
	}
	shape, ok := m.Shapes[namespace+op]
	if !ok {
		return nil, fmt.Errorf("no operation %s", op)
	}
	one, err := json.Marshal(map[string]any{"smithy": m.Smithy, "shapes": map[string]json.RawMessage{namespace + op: shape}})
	if err != nil {
		return nil, err
	}
	return waitermodel.Parse(one)
}
