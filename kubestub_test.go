//go:build unix

package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCommands["kubestubcheck"] = cmdKubeStubCheck }

// stubOnly are the fields of the stub's objects that a v1.32 API server
// cannot return, each with the reason the stub keeps it: what a real
// server cannot be made to do on demand.
var stubOnly = map[string]string{
	"pod-ready-current-spec.json status.conditions[].observedGeneration": "Kubernetes 1.34 (KEP-5067): a v1.32 server prunes it",
	"pod-ready-older-spec.json status.conditions[].observedGeneration":   "Kubernetes 1.34 (KEP-5067): a v1.32 server prunes it",
	"pod-ready-current-spec.json metadata.generation":                    "Kubernetes 1.34 sets a Pod's generation; v1.32 does not keep it",
	"pod-ready-older-spec.json metadata.generation":                      "Kubernetes 1.34 sets a Pod's generation; v1.32 does not keep it",
	"pod-ready-current-spec.json status.observedGeneration":              "Kubernetes 1.34 (KEP-5067): a v1.32 server prunes it",
	"pod-ready-older-spec.json status.observedGeneration":                "Kubernetes 1.34 (KEP-5067): a v1.32 server prunes it",
	"status-too-many-requests.json details.retryAfterSeconds":            "sent with 429 (StatusDetails.RetryAfterSeconds); a server cannot be made to throttle on demand",
}

// refused are the stub objects a real server refuses to store, and why:
// what the waiters must fail on, which no server returns.
var refused = map[string]string{
	"deployment-numbers-as-strings.json": "numbers given as strings: the API server refuses the object (the rollout waiters fail on it)",
}

// cmdKubeStubCheck is `kubestubcheck DIR`: for each recorded object of the
// API server stub (kubeapi) in DIR, it has the real server of kubecluster
// store the same object (created, then its status written with
// --subresource=status) and reads it back, and fails on a field of the
// stub's object that the server's copy does not hold: a field the server
// does not know, which it prunes. Status objects are compared with the
// real server's NotFound, Forbidden and Unauthorized; the empty List with
// kubectl's. stubOnly and refused list the known exceptions, with why.
func cmdKubeStubCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: kubestubcheck DIR")
	}
	files, err := filepath.Glob(filepath.Join(ts.MkAbs(args[0]), "*.json"))
	ts.Check(err)
	kubectl := func(stdin []byte, args ...string) ([]byte, error) {
		c := scriptCommand(ts, append([]string{"kubectl"}, args...))
		c.Stdin = bytes.NewReader(stdin)
		var errb bytes.Buffer
		c.Stderr = &errb
		out, err := c.Output()
		if err != nil {
			return out, fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, errb.Bytes())
		}
		return out, nil
	}
	cl, ok := kubeClusters.Load(ts)
	if !ok {
		ts.Fatalf("kubestubcheck: no kubecluster")
	}
	c := cl.(*kubeCluster)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.ca}}}
	var statuses []any
	for _, token := range []string{c.admin, "nobody-token", "wrong"} { // NotFound, Forbidden, Unauthorized
		req, _ := http.NewRequest("GET", fmt.Sprintf("https://127.0.0.1:%d/apis/batch/v1/namespaces/default/jobs/not-there", c.apiPort), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		ts.Check(err)
		var v any
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		ts.Check(err)
		statuses = append(statuses, v)
	}
	if len(statuses) != 3 {
		ts.Fatalf("kubestubcheck: want the real NotFound, Forbidden and Unauthorized Status, got %d", len(statuses))
	}
	var problems []string
	checked := 0
	for i, f := range files {
		name := filepath.Base(f)
		raw, err := os.ReadFile(f)
		ts.Check(err)
		var stub map[string]any
		ts.Check(json.Unmarshal(raw, &stub))
		var real []any
		switch stub["kind"] {
		case "Status":
			real = statuses
		case "List":
			out, err := kubectl(nil, "get", "pods", "-l", "none=none", "-o", "json")
			ts.Check(err)
			var v any
			ts.Check(json.Unmarshal(out, &v))
			real = []any{v}
		default:
			v, err := storeAndRead(kubectl, stub, i)
			if why, ok := refused[name]; ok {
				if err == nil {
					problems = append(problems, name+": the server stored it, where it should refuse it ("+why+")")
				}
				checked++
				continue
			}
			if err != nil {
				problems = append(problems, name+": "+err.Error())
				continue
			}
			real = []any{v}
		}
		have := map[string]bool{}
		for _, r := range real {
			for _, p := range jsonPaths(r, "") {
				have[p] = true
			}
		}
		for _, p := range jsonPaths(stub, "") {
			if !have[p] && stubOnly[name+" "+p] == "" {
				problems = append(problems, fmt.Sprintf("%s: %s: not in what the real server returns for the same object", name, p))
			}
		}
		checked++
	}
	ts.Logf("kubestubcheck: %d stub objects checked against the real server", checked)
	if len(problems) > 0 {
		ts.Fatalf("kubestubcheck:\n%s", strings.Join(problems, "\n"))
	}
}

// storeAndRead has the real server store obj (in a namespace of its own
// when namespaced), returns the object as the server returns it, and
// deletes it.
func storeAndRead(kubectl func([]byte, ...string) ([]byte, error), obj map[string]any, i int) (any, error) {
	meta, _ := obj["metadata"].(map[string]any)
	kind, _ := obj["kind"].(string)
	name, _ := meta["name"].(string)
	create := map[string]any{"apiVersion": obj["apiVersion"], "kind": kind, "spec": obj["spec"]}
	m := map[string]any{"name": name}
	for _, k := range []string{"labels", "annotations"} {
		if v, ok := meta[k]; ok {
			m[k] = v
		}
	}
	ns := []string{}
	if _, namespaced := meta["namespace"]; namespaced {
		n := fmt.Sprintf("stub-%d", i)
		if _, err := kubectl(nil, "create", "namespace", n); err != nil {
			return nil, err
		}
		m["namespace"], ns = n, []string{"-n", n}
	}
	create["metadata"] = m
	if kind == "Job" {
		// The recorded Job's selector is the one the server generated
		// for it: the server generates it again.
		spec := maps.Clone(obj["spec"].(map[string]any))
		delete(spec, "selector")
		create["spec"] = spec
	}
	b, _ := json.Marshal(create)
	if _, err := kubectl(b, "create", "-f", "-"); err != nil {
		return nil, err
	}
	// Deleted after: the next file's object has the same name (or
	// the same cluster IP).
	// (Not waited for in a namespace of its own: a PVC's protection
	// finalizer has no controller here to remove it.)
	defer kubectl(nil, append([]string{"delete", kind, name, "--grace-period=0", "--force", "--wait=" + strconv.FormatBool(len(ns) == 0), "--timeout=1m"}, ns...)...)
	ref := append([]string{strings.ToLower(kind) + "." + groupOf(obj), name}, ns...)
	if st, ok := obj["status"]; ok {
		p, _ := json.Marshal(map[string]any{"status": st})
		if _, err := kubectl(nil, append([]string{"patch", "--subresource=status", "--type=merge", "-p", string(p)}, ref...)...); err != nil {
			return nil, err
		}
	}
	out, err := kubectl(nil, append([]string{"get", "-o", "json"}, ref...)...)
	if err != nil {
		return nil, err
	}
	var v any
	return v, json.Unmarshal(out, &v)
}

// groupOf is the API group of obj's apiVersion ("" for the core group).
func groupOf(obj map[string]any) string {
	av, _ := obj["apiVersion"].(string)
	g, _, ok := strings.Cut(av, "/")
	if !ok {
		return ""
	}
	return g
}

// jsonPaths lists the paths of every field in v: "status.conditions[].type".
func jsonPaths(v any, prefix string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out = append(out, p)
			out = append(out, jsonPaths(x[k], p)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, jsonPaths(e, prefix+"[]")...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
