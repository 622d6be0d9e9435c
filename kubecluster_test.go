//go:build unix

package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["kubecluster"] = cmdKubeCluster
	scriptCommands["mark"] = cmdMark
	scriptCommands["noticed"] = cmdNoticed
}

var marks sync.Map // *testscript.TestScript → time.Time

// cmdMark is `mark`: it notes the time, when the script has made a change
// (patched a status, deleted an object), for noticed.
func cmdMark(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: mark")
	}
	marks.Store(ts, time.Now())
	ts.Defer(func() { marks.Delete(ts) })
}

// cmdNoticed is `noticed WHAT NAME...`: for processes started with start
// and collected with waitexit, it logs when each ended, after the last
// mark and after the first of them: how soon each noticed the change WHAT
// (a measurement for the log, never asserted). Lines start with
// "noticed:" so that a run's figures can be collected with grep.
func cmdNoticed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: noticed WHAT NAME...")
	}
	m, ok := marks.Load(ts)
	if !ok {
		ts.Fatalf("noticed: no mark")
	}
	mark := m.(time.Time)
	first := time.Time{}
	for _, n := range args[1:] {
		p := bgProcs(ts)[n]
		if p == nil {
			ts.Fatalf("noticed: no process %s", n)
		}
		<-p.done
		if first.IsZero() || p.ended.Before(first) {
			first = p.ended
		}
	}
	var b strings.Builder
	for _, n := range args[1:] {
		p := bgProcs(ts)[n]
		fmt.Fprintf(&b, " %s=%.2fs(+%.2fs)", n, p.ended.Sub(mark).Seconds(), p.ended.Sub(first).Seconds())
	}
	ts.Logf("noticed: %s:%s", args[0], b.String())
}

// The version of the control plane .ci/k8s/build.sh builds, which the
// scripts' comments and README name.
const kubeVersion = "v1.32.4"

// kubeControllers are the controllers of kube-controller-manager the
// scripts need: each writes the status of a kind a k8s: waiter reads.
const kubeControllers = "deployment-controller,replicaset-controller,statefulset-controller,daemonset-controller," +
	"job-controller,ttl-after-finished-controller,persistentvolume-binder-controller,garbage-collector-controller," +
	"namespace-controller,serviceaccount-controller,serviceaccount-token-controller"

// kubeBinDir is where .ci/k8s/build.sh put etcd, kube-apiserver and
// kube-controller-manager: $RETRY_K8S_BIN, else
// ${XDG_CACHE_HOME:-~/.cache}/retry-k8s/bin, as build.sh defaults.
func kubeBinDir() string {
	if d := os.Getenv("RETRY_K8S_BIN"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "retry-k8s", "bin")
}

// kubeBinaries returns the paths of the three binaries, or why they
// cannot be used.
func kubeBinaries() (map[string]string, error) {
	dir := kubeBinDir()
	bins := map[string]string{}
	for _, n := range []string{"etcd", "kube-apiserver", "kube-controller-manager"} {
		p := filepath.Join(dir, n)
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			return nil, fmt.Errorf("%s is not built (.ci/k8s/build.sh builds it; .ci/run does)", p)
		}
		bins[n] = p
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		return nil, errors.New("kubectl is not installed (.ci/run installs it)")
	}
	return bins, nil
}

// kubeCluster is a control plane a script started: etcd, kube-apiserver
// and kube-controller-manager on 127.0.0.1, in $WORK/k8s.
type kubeCluster struct {
	dir      string
	bins     map[string]string
	apiPort  int
	apiArgs  []string
	procs    map[string]*exec.Cmd
	admin    string // the admin token
	ca       *x509.CertPool
	kubeconf string
}

var kubeClusters sync.Map // *testscript.TestScript → *kubeCluster

// cmdKubeCluster is `kubecluster start`: it starts a real control plane
// (etcd v3.5.16, kube-apiserver and kube-controller-manager v1.32.4, built
// by .ci/k8s/build.sh) on random ports of 127.0.0.1, with certificates
// made for it, RBAC and two tokens, and points kubectl at it: $KUBECONFIG
// is $WORK/k8s/kubeconfig with the contexts admin (system:masters, the
// current one) and nobody (authenticated, no permission: Forbidden).
// There is no scheduler and no kubelet: a script writes a Pod's status
// with kubectl patch --subresource=status; the controllers of
// kubeControllers write the rest, as in a cluster. The script's end stops
// the three by their pids (SIGTERM, SIGKILL after 10 s).
//
// `kubecluster start controllers=A,B` runs only those controllers (a
// script that writes statuses the others would overwrite).
//
// `kubecluster stop apiserver` stops the API server (SIGTERM, waited for);
// `kubecluster start apiserver` starts it again on the same port and waits
// until it is ready.
//
// Scripts guard with `[!kubecluster] skip '…'`: the condition is false
// without the binaries or kubectl, and an error that says what is missing
// when RETRY_K8S_REQUIRED is set (.ci/run sets it): CI never skips them.
func cmdKubeCluster(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: kubecluster start | stop apiserver | start apiserver")
	}
	if c, ok := kubeClusters.Load(ts); ok {
		c := c.(*kubeCluster)
		switch strings.Join(args, " ") {
		case "stop apiserver":
			c.stop(ts, "kube-apiserver")
		case "start apiserver":
			c.startAPIServer(ts)
		default:
			ts.Fatalf("kubecluster: a cluster runs already; want stop apiserver or start apiserver")
		}
		return
	}
	controllers := kubeControllers
	if len(args) == 2 && strings.HasPrefix(args[1], "controllers=") {
		controllers = strings.TrimPrefix(args[1], "controllers=")
		args = args[:1]
	}
	if len(args) != 1 || args[0] != "start" {
		ts.Fatalf("usage: kubecluster start [controllers=NAME,...]")
	}
	bins, err := kubeBinaries()
	if err != nil {
		ts.Fatalf("kubecluster: %v; guard the script with [!kubecluster] skip", err)
	}
	c := &kubeCluster{dir: filepath.Join(ts.Getenv("WORK"), "k8s"), bins: bins, procs: map[string]*exec.Cmd{}}
	ts.Check(os.MkdirAll(c.dir, 0o700))
	kubeClusters.Store(ts, c)
	ts.Defer(func() {
		for _, n := range []string{"kube-controller-manager", "kube-apiserver", "etcd"} {
			c.stop(ts, n)
		}
		kubeClusters.Delete(ts)
	})
	start := time.Now()
	ts.Check(c.pki())
	etcdClient, etcdPeer, api := freePort(ts), freePort(ts), freePort(ts)
	c.apiPort = api
	c.spawn(ts, "etcd", "--name", "retrytest", "--data-dir", filepath.Join(c.dir, "etcd-data"),
		"--listen-client-urls", fmt.Sprintf("http://127.0.0.1:%d", etcdClient),
		"--advertise-client-urls", fmt.Sprintf("http://127.0.0.1:%d", etcdClient),
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", etcdPeer),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", etcdPeer),
		"--initial-cluster", fmt.Sprintf("retrytest=http://127.0.0.1:%d", etcdPeer), "--log-level", "warn")
	pki := func(f string) string { return filepath.Join(c.dir, "pki", f) }
	c.apiArgs = []string{
		"--etcd-servers", fmt.Sprintf("http://127.0.0.1:%d", etcdClient),
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(api), "--advertise-address", "127.0.0.1",
		"--endpoint-reconciler-type", "none",
		"--tls-cert-file", pki("apiserver.crt"), "--tls-private-key-file", pki("apiserver.key"),
		"--client-ca-file", pki("ca.crt"), "--token-auth-file", pki("tokens.csv"),
		"--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", pki("sa.pub"), "--service-account-signing-key-file", pki("sa.key"),
		"--service-cluster-ip-range", "10.96.0.0/12", "--cert-dir", filepath.Join(c.dir, "apiserver-certs"),
		"--profiling=false",
	}
	c.startAPIServer(ts)
	ts.Check(c.writeKubeconfig())
	scriptSetenv(ts, "KUBECONFIG", c.kubeconf)
	scriptSetenv(ts, "KUBECACHEDIR", filepath.Join(c.dir, "kubecache"))
	ready := time.Since(start)
	c.spawn(ts, "kube-controller-manager", "--kubeconfig", c.kubeconf, "--leader-elect=false", "--secure-port", "0",
		"--controllers", controllers,
		"--service-account-private-key-file", pki("sa.key"), "--root-ca-file", pki("ca.crt"),
		"--use-service-account-credentials=false")
	// The namespace controller's default ServiceAccount says the
	// controllers run.
	c.await(ts, "kube-controller-manager", "/api/v1/namespaces/default/serviceaccounts/default")
	ts.Logf("kubecluster: API server %s ready in %s on 127.0.0.1:%d, controllers in %s", kubeVersion, ready.Round(10*time.Millisecond), api, time.Since(start).Round(10*time.Millisecond))
}

// startAPIServer starts kube-apiserver and waits until /readyz says ready.
func (c *kubeCluster) startAPIServer(ts *testscript.TestScript) {
	c.spawn(ts, "kube-apiserver", c.apiArgs...)
	c.await(ts, "kube-apiserver", "/readyz")
}

// spawn starts binary name with args, its output in $WORK/k8s/NAME.log.
func (c *kubeCluster) spawn(ts *testscript.TestScript, name string, args ...string) {
	logf, err := os.OpenFile(filepath.Join(c.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	ts.Check(err)
	defer logf.Close()
	cmd := exec.Command(c.bins[name], args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Killed with the test process, should it die first.
	cmd.SysProcAttr = dieWithTest()
	ts.Check(cmd.Start())
	c.procs[name] = cmd
}

// stop stops process name by its pid: SIGTERM, SIGKILL after 10 s.
func (c *kubeCluster) stop(ts *testscript.TestScript, name string) {
	cmd := c.procs[name]
	if cmd == nil {
		return
	}
	delete(c.procs, name)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// await waits (at most 3 minutes: a loaded machine) until GET path answers
// 200 with the admin token, failing if process name ends first.
func (c *kubeCluster) await(ts *testscript.TestScript, name, path string) {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.ca}}}
	url := fmt.Sprintf("https://127.0.0.1:%d%s", c.apiPort, path)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		req, _ := http.NewRequestWithContext(context.Background(), "GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+c.admin)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if p := c.procs[name]; p != nil && exited(p.Process.Pid) {
			ts.Fatalf("kubecluster: %s ended: %s", name, tailFile(filepath.Join(c.dir, name+".log")))
		}
		if time.Now().After(deadline) {
			ts.Fatalf("kubecluster: %s not ready after 3 minutes: %s", path, tailFile(filepath.Join(c.dir, name+".log")))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// exited reports whether child pid has ended (a zombie not yet reaped).
func exited(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state is the field after the command name in parentheses.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

// tailFile returns the last lines of a log, for a failure message.
func tailFile(name string) string {
	b, _ := os.ReadFile(name)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(len(lines)-15, 0):], "\n")
}

// pki makes the cluster's certificates in $WORK/k8s/pki: a CA, the API
// server's serving certificate for 127.0.0.1, the service-account key
// pair, and the static tokens (admin in system:masters; nobody).
func (c *kubeCluster) pki() error {
	dir := filepath.Join(c.dir, "pki")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	key := func() *ecdsa.PrivateKey { k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader); return k }
	caKey, srvKey, saKey := key(), key(), key()
	now := time.Now().Add(-time.Hour)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "retrytest-ca"},
		NotBefore: now, NotAfter: now.Add(48 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, _ := x509.ParseCertificate(caDER)
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: now, NotAfter: now.Add(48 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")}, DNSNames: []string{"localhost", "kubernetes", "kubernetes.default"}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	c.ca = x509.NewCertPool()
	c.ca.AddCert(ca)
	c.admin = "admin-token-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	saPub, _ := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	files := map[string][]byte{
		"ca.crt":        pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		"apiserver.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}),
		"apiserver.key": ecKeyPEM(srvKey),
		"sa.key":        ecKeyPEM(saKey),
		"sa.pub":        pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPub}),
		"tokens.csv":    []byte(c.admin + ",admin,uid-admin,\"system:masters\"\nnobody-token,nobody,uid-nobody\n"),
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

func ecKeyPEM(k *ecdsa.PrivateKey) []byte {
	der, _ := x509.MarshalECPrivateKey(k)
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

// writeKubeconfig writes $WORK/k8s/kubeconfig: the cluster, the admin and
// nobody users by token, a context for each (namespace default), admin's
// current.
func (c *kubeCluster) writeKubeconfig() error {
	c.kubeconf = filepath.Join(c.dir, "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: retrytest
  cluster:
    server: https://127.0.0.1:%d
    certificate-authority: %s
users:
- name: admin
  user: {token: %s}
- name: nobody
  user: {token: nobody-token}
contexts:
- name: admin
  context: {cluster: retrytest, user: admin, namespace: default}
- name: nobody
  context: {cluster: retrytest, user: nobody, namespace: default}
current-context: admin
`, c.apiPort, filepath.Join(c.dir, "pki", "ca.crt"), c.admin)
	return os.WriteFile(c.kubeconf, []byte(cfg), 0o600)
}

// kubeClusterCondition is the script condition [kubecluster]: the control
// plane's binaries and kubectl are there. Without them it is false, or,
// with RETRY_K8S_REQUIRED set, an error saying what is missing.
func kubeClusterCondition() (bool, error) {
	if _, err := kubeBinaries(); err != nil {
		if os.Getenv("RETRY_K8S_REQUIRED") != "" {
			return false, fmt.Errorf("RETRY_K8S_REQUIRED is set and %v", err)
		}
		return false, nil
	}
	return true, nil
}
