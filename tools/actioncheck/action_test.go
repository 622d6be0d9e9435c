//go:build unix

package actioncheck

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// action is the metadata of a composite action, as GitHub reads it.
type action struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Author      string            `yaml:"author"`
	Branding    map[string]string `yaml:"branding"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Required    *bool  `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type step struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Env   map[string]string `yaml:"env"`
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
	If    string            `yaml:"if"`
}

func loadAction(t *testing.T) *action {
	t.Helper()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true) // a misspelt key is an error, as for GitHub
	var a action
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a
}

var expression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// TestActionMetadata is the schema check of action.yml: required keys and
// their types (strict decoding), the inputs and outputs of the contract, a
// composite run whose every step has a shell, outputs that name a step
// that exists, and expressions only in env (never inside a script, where
// an input could inject shell code).
func TestActionMetadata(t *testing.T) {
	a := loadAction(t)
	if a.Name == "" || a.Description == "" {
		t.Errorf("name and description are required")
	}
	if a.Branding["icon"] == "" || a.Branding["color"] == "" {
		t.Errorf("branding needs icon and color: %v", a.Branding)
	}
	var inputs []string
	for name, in := range a.Inputs {
		inputs = append(inputs, name)
		if in.Description == "" {
			t.Errorf("input %s: no description", name)
		}
		if in.Required == nil {
			t.Errorf("input %s: say whether it is required", name)
		}
	}
	sort.Strings(inputs)
	if want := "args attempts command continue_on_error delay go-install max-time max_attempts new_command_on_retry on_retry_command polling_interval_seconds retry_on retry_on_exit_code retry_wait_seconds shell timeout_minutes timeout_seconds version warning_on_retry"; strings.Join(inputs, " ") != want {
		t.Errorf("inputs %v, want %s", inputs, want)
	}
	if r := a.Inputs["command"].Required; r == nil || !*r {
		t.Errorf("input command must be required")
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	ids := map[string]bool{}
	for i, s := range a.Runs.Steps {
		if s.Run == "" && s.Uses == "" {
			t.Errorf("step %d: neither run nor uses", i+1)
		}
		if s.Run != "" && s.Shell == "" {
			t.Errorf("step %d (%s): a run step of a composite action needs shell", i+1, s.Name)
		}
		if s.ID != "" {
			if ids[s.ID] {
				t.Errorf("step id %s used twice", s.ID)
			}
			ids[s.ID] = true
		}
		if expression.MatchString(s.Run) {
			t.Errorf("step %d (%s): ${{ }} inside run; pass it through env", i+1, s.Name)
		}
		for k, v := range s.Env {
			for _, m := range expression.FindAllStringSubmatch(v, -1) {
				if name, ok := strings.CutPrefix(m[1], "inputs."); ok {
					if _, ok := a.Inputs[name]; !ok {
						t.Errorf("step %d env %s: no input %s", i+1, k, name)
					}
				}
			}
		}
	}
	var outputs []string
	for name, out := range a.Outputs {
		outputs = append(outputs, name)
		want := fmt.Sprintf("${{ steps.retry.outputs.%s }}", name)
		if out.Value != want || out.Description == "" {
			t.Errorf("output %s: value %q, want %q and a description", name, out.Value, want)
		}
	}
	sort.Strings(outputs)
	if want := "attempts exit-code exit_code exit_error outcome total_attempts"; strings.Join(outputs, " ") != want {
		t.Errorf("outputs %v, want %s", outputs, want)
	}
	if !ids["retry"] {
		t.Errorf("no step with id retry for the outputs")
	}
}

// runner runs the action's steps the way GitHub's runner does: bash
// --noprofile --norc -eo pipefail FILE, a fresh $GITHUB_OUTPUT per step,
// $GITHUB_PATH applied to later steps, expressions substituted in env.
type runner struct {
	t       *testing.T
	dir     string
	inputs  map[string]string
	github  map[string]string
	env     []string
	path    []string
	outputs map[string]map[string]string // step id → outputs
	summary string
}

func newRunner(t *testing.T, inputs map[string]string) *runner {
	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	a := loadAction(t)
	full := map[string]string{}
	for name, in := range a.Inputs {
		full[name] = in.Default
	}
	for k, v := range inputs {
		full[k] = v
	}
	r := &runner{t: t, dir: dir, inputs: full, outputs: map[string]map[string]string{},
		github:  map[string]string{"action_repository": "retry-dev/retry", "server_url": "https://github.com"},
		summary: filepath.Join(dir, "summary.md")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "RUNNER_") && !strings.HasPrefix(kv, "RETRY_") {
			r.env = append(r.env, kv)
		}
	}
	r.env = append(r.env, "GITHUB_ACTIONS=true", "GITHUB_ACTION_PATH="+root, "GITHUB_ACTION_REF=v0.0.0-local",
		"GITHUB_STEP_SUMMARY="+r.summary, "RUNNER_TEMP="+dir, "RUNNER_OS=Linux", "RUNNER_ARCH=X64")
	return r
}

func (r *runner) expand(s string) string {
	return expression.ReplaceAllStringFunc(s, func(m string) string {
		e := expression.FindStringSubmatch(m)[1]
		switch {
		case strings.HasPrefix(e, "inputs."):
			return r.inputs[strings.TrimPrefix(e, "inputs.")]
		case strings.HasPrefix(e, "github."):
			if v, ok := r.github[strings.TrimPrefix(e, "github.")]; ok {
				return v
			}
		case strings.HasPrefix(e, "steps."):
			parts := strings.Split(e, ".") // steps.ID.outputs.NAME
			if len(parts) == 4 && parts[2] == "outputs" {
				return r.outputs[parts[1]][parts[3]]
			}
		}
		r.t.Fatalf("unknown expression %s", m)
		return ""
	})
}

// command returns the process that runs step s as the runner does: a fresh
// $GITHUB_OUTPUT and $GITHUB_PATH, the env of the step with its
// expressions substituted.
func (r *runner) command(s step) *exec.Cmd {
	script := filepath.Join(r.dir, "step.sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o600); err != nil {
		r.t.Fatal(err)
	}
	for _, f := range []string{r.outputFile(s), r.pathFile()} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			r.t.Fatal(err)
		}
	}
	c := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a process group to stop
	c.Env = append([]string{}, r.env...)
	c.Env = append(c.Env, "GITHUB_OUTPUT="+r.outputFile(s), "GITHUB_PATH="+r.pathFile())
	pathVar := os.Getenv("PATH")
	if len(r.path) > 0 {
		pathVar = strings.Join(r.path, ":") + ":" + pathVar
	}
	c.Env = append(c.Env, "PATH="+pathVar)
	for k, v := range s.Env {
		c.Env = append(c.Env, k+"="+r.expand(v))
	}
	return c
}

func (r *runner) outputFile(s step) string { return filepath.Join(r.dir, "output-"+s.ID) }
func (r *runner) pathFile() string         { return filepath.Join(r.dir, "path") }

// run runs step s and returns its combined output (stdout and stderr on
// one pipe, in the order they were written) and exit status.
func (r *runner) run(s step) (string, int) {
	c := r.command(s)
	var b bytes.Buffer
	c.Stdout, c.Stderr = &b, &b
	if err := c.Start(); err != nil {
		r.t.Fatal(err)
	}
	defer stopAfter(r.t, c, stepLimit).Stop()
	err := c.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatal(err)
	}
	r.ended(s)
	return b.String(), code
}

// stepLimit bounds a step's run: a step still running then is killed and
// the test fails (an attempt count that never ends, a wait that is never
// over), instead of the test binary's own timeout.
var stepLimit = 3 * time.Minute

// stopAfter kills c's process group once d has passed, failing the test.
func stopAfter(t *testing.T, c *exec.Cmd, d time.Duration) *time.Timer {
	return time.AfterFunc(d, func() {
		t.Errorf("the step still ran after %s: killed", d)
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	})
}

// ended reads what step s left: its outputs, and the PATH entries for the
// steps after it.
func (r *runner) ended(s step) {
	outputs, err := parseOutputs(readFile(r.t, r.outputFile(s)))
	if err != nil {
		r.t.Fatalf("step %s: GITHUB_OUTPUT: %v", s.ID, err)
	}
	r.outputs[s.ID] = outputs
	for _, line := range strings.Split(strings.TrimSpace(readFile(r.t, r.pathFile())), "\n") {
		if line != "" {
			r.path = append([]string{line}, r.path...)
		}
	}
}

// parseOutputs reads $GITHUB_OUTPUT: NAME=VALUE lines and NAME<<DELIM
// heredocs.
func parseOutputs(s string) (map[string]string, error) {
	m := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		if name, delim, ok := strings.Cut(l, "<<"); ok {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			if i == len(lines) {
				return nil, fmt.Errorf("%s: no closing %s", name, delim)
			}
			m[name] = strings.Join(val, "\n")
			continue
		}
		name, val, ok := strings.Cut(l, "=")
		if !ok {
			return nil, fmt.Errorf("bad line %q", l)
		}
		m[name] = val
	}
	return m, nil
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (r *runner) actionOutputs(a *action) map[string]string {
	m := map[string]string{}
	for name, o := range a.Outputs {
		m[name] = r.expand(o.Value)
	}
	return m
}

// TestActionRunsLocally runs the action's steps with go-install (built from
// this checkout, as the action's own checkout is on a runner): a command
// that fails twice then succeeds, and one that never does.
func TestActionRunsLocally(t *testing.T) {
	if testing.Short() {
		t.Skip("builds retry")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	a := loadAction(t)
	counter := filepath.Join(t.TempDir(), "count")
	r := newRunner(t, map[string]string{
		"command":    "n=0; [ -e " + counter + " ] && n=$(cat " + counter + "); n=$((n + 1)); echo $n > " + counter + "\necho \"attempt $n\" >&2\n[ $n -ge 3 ]",
		"attempts":   "5",
		"delay":      "0",
		"max-time":   "1m",
		"args":       `--jitter none --log-format "text"`,
		"go-install": "true",
	})
	out, code := r.run(a.Runs.Steps[0])
	if code != 0 || !strings.Contains(out, "retry version v0.0.0-local") {
		t.Fatalf("install step: status %d:\n%s", code, out)
	}
	out, code = r.run(a.Runs.Steps[1])
	if code != 0 {
		t.Fatalf("retry step: status %d:\n%s", code, out)
	}
	for _, want := range []string{"::group::attempt 1/5\nattempt 1\n", "::warning title=retry::attempt 2/5: exit status 1: retry (server-side) [no acceptor matched]; next attempt in 0s\n", "::group::attempt 3/5\nattempt 3\n::endgroup::\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("retry step log has no %q:\n%s", want, out)
		}
	}
	if got, want := fmt.Sprint(r.actionOutputs(a)), "map[attempts:3 exit-code:0 exit_code:0 exit_error: outcome:success total_attempts:3]"; got != want {
		t.Errorf("outputs %s, want %s", got, want)
	}
	if s := readFile(t, r.summary); !strings.Contains(s, "| 3 | ") || !strings.Contains(s, "### retry run: success after 3 attempts, exit status 0") {
		t.Errorf("summary:\n%s", s)
	}

	// A command that keeps failing: the step fails with its status.
	r.inputs["command"], r.inputs["attempts"], r.inputs["args"] = "exit 7", "2", ""
	out, code = r.run(a.Runs.Steps[1])
	if code != 7 || !strings.Contains(out, "::error title=retry::gave up after 2 attempts (attempts exhausted); last attempt: exit status 7") {
		t.Errorf("failing step: status %d, want 7:\n%s", code, out)
	}
	if got, want := fmt.Sprint(r.actionOutputs(a)), "map[attempts:2 exit-code:7 exit_code:7 exit_error:attempts exhausted after 2 attempts: the last attempt exited 7 outcome:attempts exhausted total_attempts:2]"; got != want {
		t.Errorf("outputs %s, want %s", got, want)
	}

	// Unbalanced quotes in args: a usage error, nothing run.
	r.inputs["args"] = `--retry-exit "1`
	out, code = r.run(a.Runs.Steps[1])
	if code != 125 || !strings.Contains(out, "::error title=retry::args: cannot split into words") {
		t.Errorf("bad args: status %d, want 125:\n%s", code, out)
	}
	if got, want := fmt.Sprint(r.actionOutputs(a)), "map[attempts:0 exit-code:125 exit_code:125 exit_error:args: cannot split into words (unbalanced quotes?) outcome:not run total_attempts:0]"; got != want {
		t.Errorf("outputs %s, want %s", got, want)
	}

	// A flag retry refuses: its message, exit 125, and the outputs say so.
	r.inputs["args"] = "--backoff sometimes"
	out, code = r.run(a.Runs.Steps[1])
	if code != 125 || !strings.Contains(out, `retry: --backoff: "sometimes": want one of`) {
		t.Errorf("bad flag: status %d, want 125:\n%s", code, out)
	}
	if got, want := fmt.Sprint(r.actionOutputs(a)), "map[attempts:0 exit-code:125 exit_code:125 exit_error:retry refused its command line outcome:not run total_attempts:0]"; got != want {
		t.Errorf("outputs %s, want %s", got, want)
	}
}

// TestActionDownloadsRelease runs the install step against a local server
// laid out like GitHub releases: latest resolves through the redirect,
// the archive for the runner's OS and architecture is checked against
// checksums.txt, and a mismatch fails the step.
func TestActionDownloadsRelease(t *testing.T) {
	a := loadAction(t)
	archive := tarGz(t, "retry", "#!/bin/sh\necho 'retry version 9.8.7'\n")
	sum := fmt.Sprintf("%x", sha256.Sum256(archive))
	checksums := sum + "  retry_9.8.7_linux_amd64.tar.gz\n"
	mux := http.NewServeMux()
	mux.HandleFunc("/retry-dev/retry/releases/latest", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/retry-dev/retry/releases/tag/v9.8.7", http.StatusFound)
	})
	mux.HandleFunc("/retry-dev/retry/releases/tag/v9.8.7", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/retry-dev/retry/releases/download/v9.8.7/retry_9.8.7_linux_amd64.tar.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Write(archive)
	})
	mux.HandleFunc("/retry-dev/retry/releases/download/v9.8.7/checksums.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(checksums))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	r := newRunner(t, map[string]string{"command": "true"})
	r.github["server_url"] = srv.URL
	out, code := r.run(a.Runs.Steps[0])
	if code != 0 || !strings.Contains(out, "retry version 9.8.7") {
		t.Fatalf("install step: status %d:\n%s", code, out)
	}
	if len(r.path) != 1 || !strings.HasPrefix(r.path[0], r.dir) {
		t.Errorf("GITHUB_PATH holds %v, want the install directory under RUNNER_TEMP", r.path)
	}

	// An explicit version skips the redirect; a bad checksum fails.
	checksums = strings.Repeat("0", 64) + "  retry_9.8.7_linux_amd64.tar.gz\n"
	r.inputs["version"] = "v9.8.7"
	out, code = r.run(a.Runs.Steps[0])
	if code == 0 || !strings.Contains(out, "::error title=retry::checksum mismatch for retry_9.8.7_linux_amd64.tar.gz") {
		t.Errorf("bad checksum: status %d:\n%s", code, out)
	}
}

func tarGz(t *testing.T, name, content string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct{ name, body string }{{"README.md", "readme\n"}, {name, content}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o755, Size: int64(len(f.body))}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}
