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
	"fmt"
	"slices"
	"strings"

	"github.com/retry-dev/retry/acceptor/waitermodel"
)

// Service is the prefix of the built-in Kubernetes waiters:
// --waiter k8s:deployment-rolled-out.
const Service = "k8s"

//go:embed waiters.json
var model []byte

// names are the waiters of waiters.json, sorted, each with the name
// --waiter gives it: kebab-case, with the kinds spelled as kubectl's
// resource names (statefulset, daemonset, pvc, crd). A test checks that it
// lists the model's waiters.
var names = [...]struct{ model, cli string }{
	{"CRDEstablished", "crd-established"},
	{"DaemonSetRolledOut", "daemonset-rolled-out"},
	{"Deleted", "deleted"},
	{"DeploymentRolledOut", "deployment-rolled-out"},
	{"JobComplete", "job-complete"},
	{"JobFinished", "job-finished"},
	{"NodeReady", "node-ready"},
	{"PVCBound", "pvc-bound"},
	{"PodReady", "pod-ready"},
	{"ServiceLoadBalancer", "service-load-balancer"},
	{"StatefulSetRolledOut", "statefulset-rolled-out"},
}

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
func Waiter(name string) (*waitermodel.Model, error) {
	found := ""
	for _, n := range names {
		if name == n.cli || name == n.model {
			found = n.model
		}
	}
	if found == "" {
		list := make([]string, len(names))
		for i, n := range names {
			list[i] = n.cli
		}
		slices.Sort(list)
		return nil, fmt.Errorf("%s has no waiter %q; it has %s", Service, name, strings.Join(list, ", "))
	}
	f, err := waitermodel.Parse(model)
	if err != nil {
		return nil, fmt.Errorf("built-in Kubernetes waiters: %v", err)
	}
	return f.Model(found)
}
