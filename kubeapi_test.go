package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["kubeapi"] = cmdKubeAPI
}

// cmdKubeAPI is `kubeapi DIR`: it starts a Kubernetes API server stub on
// 127.0.0.1 (a random port) in the test process for the rest of the
// script, and points kubectl at it: $KUBECONFIG is a kubeconfig written to
// $WORK/kubeconfig (namespace default, no credentials), $KUBECACHEDIR
// kubectl's discovery cache under $WORK. Scripts guard with
// [!exec:kubectl] skip.
//
// The stub answers the discovery requests kubectl makes before a get (the
// legacy /api and /apis documents and each group version's resource list,
// for the kinds of kubeResources) and, for each other GET, a scripted
// sequence of object states: DIR/PATH (PATH the request's path, as
// /apis/apps/v1/namespaces/default/deployments/web) lists the states one a
// line, each the name of a JSON file of $K8S_OBJECTS (the recorded objects
// of acceptor/k8s/testdata). The n-th GET of PATH gets the n-th state, the
// last one repeating: a script advances the object by polling it, with no
// timing. A state that is a Status object (kind Status) is served with its
// code as the HTTP status: NotFound is a 404, Forbidden a 403. A path DIR
// does not list is a 404 Status. Each object GET is appended to
// $WORK/DIR.requests as "GET PATH".
func cmdKubeAPI(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: kubeapi DIR")
	}
	work := ts.Getenv("WORK")
	s := &kubeStub{
		dir:     filepath.Join(work, args[0]),
		objects: ts.Getenv("K8S_OBJECTS"),
		log:     filepath.Join(work, args[0]+".requests"),
		served:  map[string]int{},
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	srv := &http.Server{Handler: s}
	done := make(chan struct{})
	go func() { srv.Serve(l); close(done) }()
	ts.Defer(func() { srv.Close(); <-done })
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: stub
  cluster:
    server: http://%s
contexts:
- name: stub
  context:
    cluster: stub
    namespace: default
    user: stub
current-context: stub
users:
- name: stub
  user: {}
`, l.Addr())
	kubeconfig := filepath.Join(work, "kubeconfig")
	ts.Check(os.WriteFile(kubeconfig, []byte(cfg), 0o600))
	scriptSetenv(ts, "KUBECONFIG", kubeconfig)
	scriptSetenv(ts, "KUBECACHEDIR", filepath.Join(work, ".kube-cache"))
}

// kubeStub is a running API server stub.
type kubeStub struct {
	dir, objects, log string

	mu     sync.Mutex
	served map[string]int // object GETs so far, by path
}

// kubeResource is one resource kind the stub's discovery documents list.
type kubeResource struct {
	group, version string // "" for the core group
	name, singular string
	kind           string
	namespaced     bool
	shortNames     []string
}

// kubeResources are the kinds the stub's discovery knows.
var kubeResources = []kubeResource{
	{"", "v1", "pods", "pod", "Pod", true, []string{"po"}},
	{"", "v1", "services", "service", "Service", true, []string{"svc"}},
	{"", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true, []string{"pvc"}},
	{"", "v1", "nodes", "node", "Node", false, []string{"no"}},
	{"", "v1", "configmaps", "configmap", "ConfigMap", true, []string{"cm"}},
	{"apps", "v1", "deployments", "deployment", "Deployment", true, []string{"deploy"}},
	{"apps", "v1", "statefulsets", "statefulset", "StatefulSet", true, []string{"sts"}},
	{"apps", "v1", "daemonsets", "daemonset", "DaemonSet", true, []string{"ds"}},
	{"batch", "v1", "jobs", "job", "Job", true, nil},
	{"apiextensions.k8s.io", "v1", "customresourcedefinitions", "customresourcedefinition", "CustomResourceDefinition", false, []string{"crd", "crds"}},
}

func (s *kubeStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		kubeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "the stub serves GET only")
		return
	}
	if doc := kubeDiscovery(r.URL.Path); doc != nil {
		writeKubeJSON(w, http.StatusOK, doc)
		return
	}
	s.mu.Lock()
	s.served[r.URL.Path]++
	n := s.served[r.URL.Path]
	s.mu.Unlock()
	if f, err := os.OpenFile(s.log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
		fmt.Fprintf(f, "GET %s\n", r.URL.Path)
		f.Close()
	}
	list, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(r.URL.Path)))
	if err != nil {
		kubeStatus(w, http.StatusNotFound, "NotFound", "the stub has no states for "+r.URL.Path)
		return
	}
	states := strings.Fields(string(list))
	if len(states) == 0 {
		kubeStatus(w, http.StatusInternalServerError, "InternalError", "no states in "+r.URL.Path)
		return
	}
	state := states[min(n, len(states))-1]
	body, err := os.ReadFile(filepath.Join(s.objects, state))
	if err != nil {
		kubeStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	code := http.StatusOK
	var status struct {
		Kind string `json:"kind"`
		Code int    `json:"code"`
	}
	if json.Unmarshal(body, &status) == nil && status.Kind == "Status" && status.Code != 0 {
		code = status.Code
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(body)
}

// kubeDiscovery returns the discovery document of path, or nil when path
// is not a discovery path.
func kubeDiscovery(path string) any {
	type groupVersion struct {
		GroupVersion string `json:"groupVersion"`
		Version      string `json:"version"`
	}
	switch path {
	case "/api":
		return map[string]any{"kind": "APIVersions", "versions": []string{"v1"}}
	case "/apis":
		var groups []any
		seen := map[string]bool{}
		for _, res := range kubeResources {
			if res.group == "" || seen[res.group] {
				continue
			}
			seen[res.group] = true
			gv := groupVersion{res.group + "/" + res.version, res.version}
			groups = append(groups, map[string]any{"name": res.group, "versions": []groupVersion{gv}, "preferredVersion": gv})
		}
		return map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
	}
	var gv string
	switch {
	case path == "/api/v1":
		gv = "v1"
	case strings.HasPrefix(path, "/apis/") && strings.Count(path, "/") == 3:
		gv = strings.TrimPrefix(path, "/apis/")
	default:
		return nil
	}
	var resources []any
	for _, res := range kubeResources {
		rgv := res.version
		if res.group != "" {
			rgv = res.group + "/" + res.version
		}
		if rgv != gv {
			continue
		}
		resources = append(resources, map[string]any{
			"name": res.name, "singularName": res.singular, "namespaced": res.namespaced, "kind": res.kind,
			"verbs": []string{"get", "list", "watch", "create", "update", "patch", "delete"}, "shortNames": res.shortNames,
		})
	}
	if resources == nil {
		return nil
	}
	return map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}
}

// kubeStatus writes a Status object, as an API server reports an error.
func kubeStatus(w http.ResponseWriter, code int, reason, message string) {
	writeKubeJSON(w, code, map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code})
}

func writeKubeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
