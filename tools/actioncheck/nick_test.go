//go:build unix

package actioncheck

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"go.yaml.in/yaml/v3"
)

// withInputs parses a case's with: block as a runner does (every value a
// string).
func withInputs(t *testing.T, c dropIn) map[string]string {
	t.Helper()
	var with map[string]string
	if err := yaml.Unmarshal([]byte(strings.ReplaceAll(c.with, "MARK", mark)), &with); err != nil {
		t.Fatalf("with: %v", err)
	}
	return with
}

// ended reads how a step ended from its status, its log, its outputs and
// the marks its commands and hooks left.
func ended(t *testing.T, status int, log string, outputs map[string]string, dir string) ending {
	t.Helper()
	num := func(name string) int {
		if outputs[name] == "" {
			return 0 // not set: nick-fields/retry sets no total_attempts for a step it refuses
		}
		n, err := strconv.Atoi(outputs[name])
		if err != nil {
			t.Errorf("output %s=%q: not a number", name, outputs[name])
		}
		return n
	}
	got := ending{status: status, attempts: num("total_attempts"), exitCode: num("exit_code"),
		starts: lines(t, filepath.Join(dir, "starts")), hooks: lines(t, filepath.Join(dir, "hooks"))}
	for _, l := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(l, "::warning"):
			got.warnings++
		case strings.HasPrefix(l, "::error"):
			got.errors++
		}
	}
	if set := outputs["exit_error"] != ""; set != (got.exitCode != 0) {
		t.Errorf("exit_error %q with exit_code %d: want it set exactly when exit_code is not 0", outputs["exit_error"], got.exitCode)
	}
	// Each start's output inside its own group, as it came.
	groups, open := 0, false
	var inGroup []string
	for _, l := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(l, "::group::"):
			if open {
				t.Errorf("a group opens inside another:\n%s", log)
			}
			open, inGroup = true, nil
			groups++
		case l == "::endgroup::":
			if !open {
				t.Errorf("::endgroup:: with no group open:\n%s", log)
			}
			open = false
			if got.starts > 0 && !contains(inGroup, "live") {
				t.Errorf("group %d does not hold its attempt's output:\n%s", groups, log)
			}
		case l == "live" && !open:
			t.Errorf("an attempt's output outside its group:\n%s", log)
		default:
			inGroup = append(inGroup, l)
		}
	}
	if got.starts > 0 && groups != got.starts {
		t.Errorf("%d groups for %d starts:\n%s", groups, got.starts, log)
	}
	return got
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// lines counts the lines of the file at p (0 when there is none).
func lines(t *testing.T, p string) int {
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// installed runs the install step (go install from this checkout, as the
// action's own checkout on a runner) once for the tests of the package,
// into a RUNNER_TEMP that TestMain removes, and returns the PATH it set.
func installed(t *testing.T, a *action) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds retry")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	install.Do(func() {
		dir, err := os.MkdirTemp("", "actioncheck-install-")
		if err != nil {
			install.err = err.Error()
			return
		}
		install.dir = dir
		r := newRunner(t, map[string]string{"command": "true", "go-install": "true"})
		r.dir = dir
		r.env = append(r.env, "RUNNER_TEMP="+dir) // the later one wins
		if out, code := r.run(a.Runs.Steps[0]); code != 0 {
			install.err = fmt.Sprintf("install step: status %d:\n%s", code, out)
		}
		install.path = r.path
	})
	if install.err != "" {
		t.Fatal(install.err)
	}
	return install.path
}

// install is the install step's one run.
var install struct {
	sync.Once
	dir, err string
	path     []string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if install.dir != "" {
		os.RemoveAll(install.dir)
	}
	os.Exit(code)
}

// TestNickFieldsDropIn runs every case's with: block through the action's
// retry step exactly as a runner does (bash -eo pipefail, the inputs in
// env as action.yml maps them, a fresh $GITHUB_OUTPUT and
// $GITHUB_STEP_SUMMARY) and checks how it ended, and that it ends as
// nick-fields/retry did unless the case says why not.
func TestNickFieldsDropIn(t *testing.T) {
	a := loadAction(t)
	path := installed(t, a)
	dist := os.Getenv("RETRY_NICK_FIELDS_DIST")
	if dist != "" {
		if _, err := exec.LookPath("node"); err != nil {
			t.Fatalf("RETRY_NICK_FIELDS_DIST is set but node is not on PATH")
		}
	} else {
		t.Log("RETRY_NICK_FIELDS_DIST unset: nick-fields/retry's column is the recorded one")
	}
	var same atomic.Int32
	t.Run("cases", func(t *testing.T) {
		for _, c := range dropIns {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				with := withInputs(t, c)
				if with["shell"] == "python" {
					if _, err := exec.LookPath("python3"); err != nil {
						t.Skip("no python3 on PATH: the shell python cases need it")
					}
				}
				if (c.ours == c.nick) != (c.differs == "") {
					t.Errorf("ours %v, nick-fields/retry %v: say why they differ, exactly when they do", c.ours, c.nick)
				}
				if c.ours == c.nick {
					same.Add(1)
				}
				for name := range with {
					if _, ok := a.Inputs[name]; !ok {
						t.Fatalf("nick-fields/retry input %s is not an input of action.yml", name)
					}
				}
				r := newRunner(t, with)
				r.path = path
				r.env = append(r.env, "STARTS="+filepath.Join(r.dir, "starts"), "HOOKS="+filepath.Join(r.dir, "hooks"))
				log, code := r.run(a.Runs.Steps[1])
				if got := ended(t, code, log, r.actionOutputs(a), r.dir); got != c.ours {
					t.Errorf("ended with %v\nwant       %v\n%s", got, c.ours, log)
				}
				for _, l := range c.log {
					if !strings.Contains(log, l) {
						t.Errorf("log has no %q:\n%s", l, log)
					}
				}
				if c.ours.starts > 0 {
					if s := readFile(t, r.summary); !strings.Contains(s, "### retry run: ") {
						t.Errorf("no summary table in $GITHUB_STEP_SUMMARY:\n%s", s)
					}
				}
				if dist != "" {
					if got := runNick(t, dist, with); got != c.nick {
						t.Errorf("nick-fields/retry ended with %v\nrecorded                       %v", got, c.nick)
					}
				}
			})
		}
	})
	t.Logf("the same as nick-fields/retry in %d of %d with: blocks", same.Load(), len(dropIns))
}

// nickDefaults are the defaults of nick-fields/retry's action.yml, which
// the runner passes as INPUT_* when a with: block leaves them out.
var nickDefaults = map[string]string{"max_attempts": "3", "retry_wait_seconds": "10",
	"polling_interval_seconds": "1", "warning_on_retry": "true", "continue_on_error": "false"}

// nickPreload shortens nick-fields/retry's timers (its one-second polls
// and its waits, which it never makes shorter than a second) to 10ms, so
// that the side-by-side run takes no longer than ours; its timeouts are
// measured on the clock and stay as asked.
const nickPreload = `const set = global.setTimeout;
global.setTimeout = (fn, ms, ...args) => set(fn, Math.min(ms, 10), ...args);
`

// runNick runs nick-fields/retry's dist/index.js as the runner runs a
// node action: INPUT_* for every input with a value, $GITHUB_OUTPUT.
func runNick(t *testing.T, dist string, with map[string]string) ending {
	t.Helper()
	dir := t.TempDir()
	preload := filepath.Join(dir, "preload.js")
	if err := os.WriteFile(preload, []byte(nickPreload), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "output")
	if err := os.WriteFile(out, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := exec.Command("node", "--require", preload, dist)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "RUNNER_") && !strings.HasPrefix(kv, "INPUT_") {
			c.Env = append(c.Env, kv)
		}
	}
	inputs := map[string]string{}
	for k, v := range nickDefaults {
		inputs[k] = v
	}
	for k, v := range with {
		inputs[k] = v
	}
	for k, v := range inputs {
		c.Env = append(c.Env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	c.Env = append(c.Env, "GITHUB_ACTIONS=true", "GITHUB_OUTPUT="+out, "RUNNER_TEMP="+dir,
		"STARTS="+filepath.Join(dir, "starts"), "HOOKS="+filepath.Join(dir, "hooks"))
	b, err := c.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	outputs, err := parseOutputs(readFile(t, out))
	if err != nil {
		t.Fatalf("nick-fields/retry's GITHUB_OUTPUT: %v", err)
	}
	got := ended(t, code, string(b), outputs, dir)
	t.Logf("nick-fields/retry: %v\n%s", got, b)
	return got
}

// TestActionStreamsLive shows an attempt's output while the attempt still
// runs: the command prints a line, then waits for a file that the test
// creates only once it has read that line from the step's log.
func TestActionStreamsLive(t *testing.T) {
	a := loadAction(t)
	path := installed(t, a)
	r := newRunner(t, map[string]string{"timeout_seconds": "60", "max_attempts": "1",
		"command": `echo ready; for i in $(seq 6000); do [ -e "$RELEASE" ] && { echo released; exit 0; }; sleep 0.01; done; exit 1`})
	r.path = path
	release := filepath.Join(r.dir, "release")
	r.env = append(r.env, "RELEASE="+release)
	log, code := r.stream(a.Runs.Steps[1], func(line string) bool {
		if line == "ready" {
			if err := os.WriteFile(release, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return false
	})
	if code != 0 || !strings.Contains(log, "::group::attempt 1/1\nready\nreleased\n") {
		t.Errorf("status %d: the attempt's output did not show while it ran, inside its group:\n%s", code, log)
	}
}

// TestActionNickDefaults: a step with a timeout input is written for
// nick-fields/retry, and gets its defaults: 3 attempts, 10 s apart (read
// from the warning of the first retry; the step is then stopped, as a
// cancelled job's is), and a retry_wait_seconds of 1.5 waits 1.5 s. A step
// without one keeps retry's defaults (5 attempts, backoff with jitter).
func TestActionNickDefaults(t *testing.T) {
	a := loadAction(t)
	path := installed(t, a)
	for _, c := range []struct {
		with map[string]string
		want string
	}{
		{map[string]string{"timeout_seconds": "5", "command": "exit 1"}, "::warning title=retry::attempt 1/3: exit status 1: retry (server-side) [no acceptor matched]; next attempt in 10s\n"},
		{map[string]string{"timeout_minutes": "5", "retry_wait_seconds": "1.5", "command": "exit 1"}, "::warning title=retry::attempt 1/3: exit status 1: retry (server-side) [no acceptor matched]; next attempt in 1.5s\n"},
		{map[string]string{"timeout_seconds": "5", "max_attempts": "0", "command": "exit 1"}, "::warning title=retry::attempt 1/3: "},
		{map[string]string{"command": "exit 1", "args": "--delay 10m --max-delay 10m --jitter none"}, "::warning title=retry::attempt 1/5: exit status 1: retry (server-side) [no acceptor matched]; next attempt in 10m0s\n"},
	} {
		r := newRunner(t, c.with)
		r.path = path
		log, _ := r.stream(a.Runs.Steps[1], func(line string) bool { return strings.HasPrefix(line, "::warning") })
		if !strings.Contains(log, c.want) {
			t.Errorf("with %v: the log has no %q:\n%s", c.with, c.want, log)
		}
	}
}

// stream runs step s like run, handing each line of its log to see as it
// comes; when see returns true the step is stopped (SIGTERM to its process
// group, as a runner cancels a step). It returns the log and the status.
func (r *runner) stream(s step, see func(line string) bool) (string, int) {
	c := r.command(s)
	pr, pw := io.Pipe()
	c.Stdout, c.Stderr = pw, pw
	if err := c.Start(); err != nil {
		r.t.Fatal(err)
	}
	defer stopAfter(r.t, c, stepLimit).Stop()
	done := make(chan error, 1)
	go func() { done <- c.Wait(); pw.Close() }()
	var log strings.Builder
	sc := bufio.NewScanner(pr)
	stopped := false
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if !stopped && see(sc.Text()) {
			stopped = true
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
		}
	}
	err := <-done
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatal(err)
	}
	r.ended(s)
	return log.String(), code
}

// TestActionRefusesBadInputs: a value out of an input's words fails the
// step with one ::error line naming the input, exit code 125 and nothing
// run; with continue_on_error the line is a warning and the step succeeds.
func TestActionRefusesBadInputs(t *testing.T) {
	a := loadAction(t)
	path := installed(t, a)
	for _, c := range []struct {
		with map[string]string
		code int
		line string
	}{
		{map[string]string{"shell": "cmd"}, 125, `::error title=retry::shell: "cmd" runs on Windows runners only (as with nick-fields/retry): want bash, sh, python or pwsh`},
		{map[string]string{"shell": "fish"}, 125, `::error title=retry::shell: "fish": want bash, sh, python or pwsh`},
		{map[string]string{"timeout_minutes": "1", "timeout_seconds": "5"}, 125, `::error title=retry::timeout_minutes: set timeout_minutes or timeout_seconds, not both`},
		{map[string]string{"max_attempts": "three"}, 125, `::error title=retry::max_attempts: "three": want a whole number`},
		{map[string]string{"timeout_seconds": "", "timeout_minutes": "1m"}, 125, `::error title=retry::timeout_minutes: "1m": want a number of minutes (10, 1.5)`},
		{map[string]string{"retry_wait_seconds": "1,5"}, 125, `::error title=retry::retry_wait_seconds: "1,5": want a number of seconds (10, 1.5)`},
		{map[string]string{"retry_on_exit_code": "256"}, 125, `::error title=retry::retry_on_exit_code: "256": want an exit status, 1 to 255`},
		{map[string]string{"retry_on": "sometimes"}, 125, `::error title=retry::retry_on: "sometimes": want any, timeout or error`},
		{map[string]string{"continue_on_error": "maybe"}, 125, `::error title=retry::continue_on_error: "maybe": want true or false (any case)`},
		{map[string]string{"warning_on_retry": "no"}, 125, `::error title=retry::warning_on_retry: "no": want true or false (any case)`},
		{map[string]string{"args": `--retry-exit "1`}, 125, `::error title=retry::args: cannot split into words (unbalanced quotes?)`},
		{map[string]string{"retry_on": "sometimes", "continue_on_error": "TRUE"}, 0, `::warning title=retry::retry_on: "sometimes": want any, timeout or error`},
	} {
		with := map[string]string{"timeout_seconds": "5", "command": mark}
		for k, v := range c.with {
			with[k] = v
		}
		r := newRunner(t, with)
		r.path = path
		r.env = append(r.env, "STARTS="+filepath.Join(r.dir, "starts"))
		log, code := r.run(a.Runs.Steps[1])
		o := r.actionOutputs(a)
		if code != c.code || !strings.Contains(log, c.line+"\n") || lines(t, filepath.Join(r.dir, "starts")) != 0 ||
			o["exit_code"] != "125" || o["total_attempts"] != "0" || o["outcome"] != "not run" {
			t.Errorf("with %v: status %d (want %d), outputs %v, want the line %q and nothing run:\n%s", c.with, code, c.code, o, c.line, log)
		}
	}
}
