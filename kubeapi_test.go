//go:build unix

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

// cmdKubeAPI is `kubeapi STATES`: it starts a Kubernetes API server stub
// on 127.0.0.1 (a random port) in the test process for the rest of the
// script, and points kubectl at it: $KUBECONFIG is a kubeconfig written to
// $WORK/kubeconfig (namespace default, no credentials), $KUBECACHEDIR
// kubectl's discovery cache under $WORK. Scripts guard with
// [!exec:kubectl] skip.
//
// The stub answers the discovery requests kubectl makes before a get
// (/version, the legacy /api and /apis documents and each group version's
// resource list, for the kinds of kubeResources) and, for each other GET,
// a scripted sequence of object states. The file STATES has a line per
// object path:
//
//	/apis/apps/v1/namespaces/default/deployments/web: deployment-progressing.json deployment-rolled-out.json
//
// each state the name of a JSON file of $K8S_OBJECTS (the recorded objects
// of acceptor/k8s/testdata); blank lines and lines starting with # are
// skipped. The n-th GET of the path gets the n-th state, the last one
// repeating: a script advances the object by polling it, with no timing. A
// state that is a Status object (kind Status) is served with its code as
// the HTTP status: NotFound is a 404, Forbidden a 403. A path STATES does
// not list is a 404 Status. For kubectl wait, a list by
// fieldSelector=metadata.name=NAME is the next state of PATH/NAME in a
// List, and a watch sends no event: it lasts until the client gives up.
// Each object request is appended to $WORK/STATES.requests as "GET PATH"
// or "WATCH PATH". Another kubeapi starts another stub, with its own
// states, and points kubectl at it.
func cmdKubeAPI(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: kubeapi STATES")
	}
	work := ts.Getenv("WORK")
	s := &kubeStub{
		objects: ts.Getenv("K8S_OBJECTS"),
		log:     filepath.Join(work, args[0]+".requests"),
		states:  map[string][]string{},
		served:  map[string]int{},
	}
	for i, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		path, states, ok := strings.Cut(line, ": ")
		if !ok || !strings.HasPrefix(path, "/") || len(strings.Fields(states)) == 0 {
			ts.Fatalf("%s:%d: want PATH: STATE...", args[0], i+1)
		}
		for _, st := range strings.Fields(states) {
			if _, err := os.Stat(filepath.Join(s.objects, st)); err != nil {
				ts.Fatalf("%s:%d: %v", args[0], i+1, err)
			}
		}
		s.states[path] = strings.Fields(states)
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
	objects, log string
	states       map[string][]string // by path

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
	q := r.URL.Query()
	s.logRequest(r.URL.Path, q.Get("watch") != "")
	if q.Get("watch") != "" {
		// kubectl wait watches after its first look: the stub sends no
		// event, so kubectl waits as it would on a cluster where the
		// object no longer changes, until its --timeout.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	path := r.URL.Path
	name, isList := strings.CutPrefix(q.Get("fieldSelector"), "metadata.name=")
	if isList {
		path += "/" + name // kubectl wait lists the one object by name
	}
	body, code := s.next(path)
	if isList && code == http.StatusOK {
		var item any
		json.Unmarshal(body, &item)
		body, _ = json.Marshal(map[string]any{"kind": "List", "apiVersion": "v1",
			"metadata": map[string]any{"resourceVersion": "1001"}, "items": []any{item}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(body)
}

// logRequest appends "GET PATH" (or "WATCH PATH") to the request log.
func (s *kubeStub) logRequest(path string, watch bool) {
	verb := "GET"
	if watch {
		verb = "WATCH"
	}
	if f, err := os.OpenFile(s.log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
		fmt.Fprintf(f, "%s %s\n", verb, path)
		f.Close()
	}
}

// next returns the next state of the object at path, and its HTTP status.
func (s *kubeStub) next(path string) ([]byte, int) {
	s.mu.Lock()
	s.served[path]++
	n := s.served[path]
	s.mu.Unlock()
	states := s.states[path]
	if len(states) == 0 {
		return kubeStatusBody(http.StatusNotFound, "NotFound", "the stub has no states for "+path), http.StatusNotFound
	}
	body, err := os.ReadFile(filepath.Join(s.objects, states[min(n, len(states))-1]))
	if err != nil {
		return kubeStatusBody(http.StatusInternalServerError, "InternalError", err.Error()), http.StatusInternalServerError
	}
	var status struct {
		Kind string `json:"kind"`
		Code int    `json:"code"`
	}
	if json.Unmarshal(body, &status) == nil && status.Kind == "Status" && status.Code != 0 {
		return body, status.Code
	}
	return body, http.StatusOK
}

// kubeDiscovery returns the discovery document of path, or nil when path
// is not a discovery path.
func kubeDiscovery(path string) any {
	type groupVersion struct {
		GroupVersion string `json:"groupVersion"`
		Version      string `json:"version"`
	}
	switch path {
	case "/version":
		return map[string]any{"major": "1", "minor": "32", "gitVersion": "v1.32.4", "platform": "linux/amd64"}
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
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(kubeStatusBody(code, reason, message))
}

func kubeStatusBody(code int, reason, message string) []byte {
	b, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code})
	return b
}

func writeKubeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
