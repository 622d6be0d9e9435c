package k8s

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/retry-dev/retry/acceptor"
)

// The checks that come before every waiter's own acceptors: the first
// mistakes of a kubectl command line, which kubectl wait reports at once
// and a poller would otherwise poll until --max-time.
//
//   - stdout that is not a JSON object (-o json forgotten: kubectl prints a
//     table, YAML or names) is a usage error, exit 125, at the first
//     attempt: no later poll can change it;
//   - kubectl's "The connection to the server localhost:8080 was refused"
//     when no kubeconfig exists is kubectl's fallback server, not a cluster
//     starting: a failure that says so. A refused connection to a server a
//     kubeconfig names is polled, as the wait fallback polls every refused
//     connection.
func checks(waiter string) []acceptor.Acceptor {
	return []acceptor.Acceptor{
		{State: acceptor.StateFailure, Usage: true, Matcher: acceptor.MatcherFunc(notJSONObject(waiter)),
			Name: "k8s: stdout is not a JSON object"},
		{State: acceptor.StateFailure, Matcher: acceptor.MatcherFunc(noKubeconfig),
			Name: "k8s: no kubeconfig, localhost:8080 refused"},
	}
}

// notJSONObject matches an attempt that succeeded with stdout that is not
// blank and does not start with '{'. Blank stdout is kubectl get
// --ignore-not-found's answer for an object that is gone.
func notJSONObject(waiter string) func(env *acceptor.Env) acceptor.MatchResult {
	return func(env *acceptor.Env) acceptor.MatchResult {
		a := env.Attempt
		if a == nil || a.Failed || a.Err != nil {
			return acceptor.MatchResult{}
		}
		rc, err := a.OpenStdout()
		if err != nil {
			return acceptor.MatchResult{}
		}
		defer rc.Close()
		br := bufio.NewReaderSize(rc, 512)
		for {
			c, err := br.ReadByte()
			if err != nil {
				return acceptor.MatchResult{Value: "no output"} // blank
			}
			switch c {
			case ' ', '\t', '\r', '\n':
				continue
			case '{':
				return acceptor.MatchResult{Value: "a JSON object"}
			}
			_ = br.UnreadByte() // the byte just read: cannot fail
			start, _ := br.Peek(40)
			return acceptor.MatchResult{Matched: true, Value: "not a JSON object",
				Detail: fmt.Sprintf("k8s:%s reads kubectl get … -o json, and stdout is not a JSON object (it starts %s): add -o json to the command", waiter, quoteStart(start))}
		}
	}
}

// quoteStart quotes the first line of b, cut at a rune boundary.
func quoteStart(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	for len(b) > 0 && !utf8.Valid(b) {
		b = b[:len(b)-1]
	}
	return fmt.Sprintf("%q", strings.TrimRight(string(b), " \r"))
}

// noKubeconfig matches kubectl's refused connection to localhost:8080, the
// server kubectl falls back to when it finds no kubeconfig, when none
// exists: $KUBECONFIG names no file that exists, or is unset and
// ~/.kube/config does not exist (kubectl's loading rules,
// k8s.io/client-go/tools/clientcmd).
func noKubeconfig(env *acceptor.Env) acceptor.MatchResult {
	a := env.Attempt
	if a == nil || !a.Failed || a.ErrorCode != "ConnectionRefused" || !strings.Contains(a.ErrorMessage, "localhost:8080") {
		return acceptor.MatchResult{}
	}
	where, ok := kubeconfigMissing()
	if !ok {
		return acceptor.MatchResult{Value: "a kubeconfig exists"}
	}
	return acceptor.MatchResult{Matched: true, Value: "no kubeconfig",
		Detail: fmt.Sprintf("kubectl found no kubeconfig (%s) and tried its default server, localhost:8080, which refused: set KUBECONFIG or pass --kubeconfig to kubectl", where)}
}

// kubeconfigMissing reports whether kubectl finds no kubeconfig, and where
// it looked.
func kubeconfigMissing() (string, bool) {
	if v := os.Getenv("KUBECONFIG"); v != "" {
		for _, f := range filepath.SplitList(v) {
			if f == "" {
				continue
			}
			if _, err := os.Stat(f); err == nil {
				return "", false
			}
		}
		return "KUBECONFIG=" + v + " names no file that exists", true
	}
	homes := kubeHomes()
	if len(homes) == 0 {
		return "KUBECONFIG is unset and there is no home directory", true
	}
	var looked []string
	for _, h := range homes {
		f := filepath.Join(h, ".kube", "config")
		if _, err := os.Stat(f); err == nil {
			return "", false
		}
		looked = append(looked, f)
	}
	if len(looked) == 1 {
		return "KUBECONFIG is unset and " + looked[0] + " does not exist", true
	}
	return "KUBECONFIG is unset and none of " + strings.Join(looked, ", ") + " exists", true
}

// kubeHomes lists the home directories where kubectl looks for
// .kube/config, as client-go's homedir.HomeDir does: $HOME on Unix; on
// Windows %HOME% (Git Bash sets it), %HOMEDRIVE%%HOMEPATH% and
// %USERPROFILE%, the first holding .kube\config winning.
func kubeHomes() []string {
	if runtime.GOOS != "windows" {
		if h := os.Getenv("HOME"); h != "" {
			return []string{h}
		}
		return nil
	}
	drivePath := ""
	if d, p := os.Getenv("HOMEDRIVE"), os.Getenv("HOMEPATH"); d != "" && p != "" {
		drivePath = d + p
	}
	var homes []string
	for _, h := range []string{os.Getenv("HOME"), drivePath, os.Getenv("USERPROFILE")} {
		if h != "" && !slices.Contains(homes, h) {
			homes = append(homes, h)
		}
	}
	return homes
}

// holdsObject reports whether stdout holds an object: it is not blank and
// not a List without items (kubectl get A B -o json prints the objects
// found in a List, and an empty List when none is).
func holdsObject(a *acceptor.Attempt) bool {
	rc, err := a.OpenStdout()
	if err != nil {
		return false
	}
	defer rc.Close()
	var doc struct {
		Kind  string     `json:"kind"`
		Items []struct{} `json:"items"`
	}
	dec := json.NewDecoder(rc)
	if err := dec.Decode(&doc); err != nil {
		// Blank, or not JSON: no object kubectl printed.
		return false
	}
	return doc.Kind != "List" || len(doc.Items) > 0
}

// notFoundOnly wraps the errorType NotFound matcher of k8s:deleted: kubectl
// get A B says NotFound for B while it prints A, which still exists; the
// object is gone only when stdout holds no object.
func notFoundOnly(m acceptor.Matcher) acceptor.Matcher {
	return acceptor.MatcherFunc(func(env *acceptor.Env) acceptor.MatchResult {
		r := m.Match(env)
		if r.Matched && env.Attempt != nil && holdsObject(env.Attempt) {
			return acceptor.MatchResult{Value: r.Value + " beside an object on stdout"}
		}
		return r
	})
}

// someStillThere matches what notFoundOnly declines: NotFound beside an
// object still there, which a later poll may see gone.
func someStillThere(env *acceptor.Env) acceptor.MatchResult {
	a := env.Attempt
	if a == nil || !a.Failed || a.ErrorCode != "NotFound" || !holdsObject(a) {
		return acceptor.MatchResult{}
	}
	return acceptor.MatchResult{Matched: true, Value: "NotFound beside an object on stdout"}
}

// conditionsRead are the condition types each waiter (model) reads, by
// the kind of object it reads them on. A slice, not a map: a map literal
// at package level is built by code at every start.
var conditionsRead = []struct {
	model, kind string
	types       []string
}{
	{"DeploymentRolledOut", "Deployment", []string{"Progressing"}},
	{"JobComplete", "Job", []string{"Complete", "Failed"}},
	{"JobFinished", "Job", []string{"Complete", "Failed"}},
	{"PodReady", "Pod", []string{"Ready"}},
	{"NodeReady", "Node", []string{"Ready"}},
	{"CRDEstablished", "CustomResourceDefinition", []string{"Established", "NamesAccepted"}},
}

// staleCondition matches an object of kind whose condition of one of types
// carries an observedGeneration older than the object's
// metadata.generation: the condition was written for an older spec and is
// not current (KEP-5067, Kubernetes 1.34; kubectl wait skips such a
// condition), so the wait goes on until the controller has observed the
// new spec.
func staleCondition(kind string, types []string) func(env *acceptor.Env) acceptor.MatchResult {
	return func(env *acceptor.Env) acceptor.MatchResult {
		a := env.Attempt
		if a == nil || a.Failed || a.Err != nil {
			return acceptor.MatchResult{}
		}
		rc, err := a.OpenStdout()
		if err != nil {
			return acceptor.MatchResult{}
		}
		defer rc.Close()
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Generation any `json:"generation"`
			} `json:"metadata"`
			Status struct {
				Conditions []struct {
					Type               any `json:"type"`
					ObservedGeneration any `json:"observedGeneration"`
				} `json:"conditions"`
			} `json:"status"`
		}
		if json.NewDecoder(rc).Decode(&obj) != nil || obj.Kind != kind {
			return acceptor.MatchResult{}
		}
		gen, ok := obj.Metadata.Generation.(float64)
		if !ok {
			return acceptor.MatchResult{}
		}
		for _, c := range obj.Status.Conditions {
			t, _ := c.Type.(string)
			og, ok := c.ObservedGeneration.(float64)
			if !ok || og >= gen || !slices.Contains(types, t) {
				continue
			}
			return acceptor.MatchResult{Matched: true, Value: fmt.Sprintf("condition %s of generation %v, metadata.generation %v", t, og, gen)}
		}
		return acceptor.MatchResult{Value: "conditions current"}
	}
}
