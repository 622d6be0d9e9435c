//go:build unix

package actioncheck

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The action on Windows runners: its steps run in Git Bash there, and
// here in bash with RUNNER_OS=Windows. A stand-in retry records the argv
// the step gives it; TestActionWindowsCmdUnderWine runs retry.exe itself
// under Wine, with Wine's cmd.exe.

// recordingRetry puts on the runner's PATH a retry that writes its argv
// (NUL after each word) to $dir/argv and its environment's MSYS_* and
// RETRY_ACTION_* variables to $dir/env, and writes no output: the step
// then reports "not run" with retry's status, 0.
func recordingRetry(t *testing.T, r *runner) {
	t.Helper()
	bin := filepath.Join(r.dir, "bin")
	if err := os.Mkdir(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$RECORD/argv\"\nenv | grep -E '^(MSYS|RETRY_ACTION_)' | sort > \"$RECORD/env\"\n"
	if err := os.WriteFile(filepath.Join(bin, "retry"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	r.path = []string{bin}
	r.env = append(r.env, "RECORD="+r.dir)
}

// recorded is the argv the stand-in retry got: the flags of retry run (up
// to --), the --on-retry hook among them, and the target after --.
func recorded(t *testing.T, r *runner) (flags []string, hook string, target []string) {
	t.Helper()
	words := strings.Split(strings.TrimSuffix(readFile(t, filepath.Join(r.dir, "argv")), "\x00"), "\x00")
	for i, w := range words {
		if w == "--" {
			flags, target = words[:i], words[i+1:]
			break
		}
	}
	for i := 0; i+1 < len(flags); i++ {
		if flags[i] == "--on-retry" {
			hook = flags[i+1]
		}
	}
	return flags, hook, target
}

const pickByAttempt = `if [ "$RETRY_ATTEMPT" -gt 1 ]; then s=$RETRY_INPUT_NEW_COMMAND_ON_RETRY; else s=$RETRY_INPUT_COMMAND; fi; exec "$@" "$s"`

// TestActionWindowsShells: each shell input on a Windows runner becomes
// the argv nick-fields/retry's Node spawn gives it there (cmd: cmd /d /s
// /c SCRIPT, which retry.exe passes to cmd.exe verbatim; powershell, the
// default, and the others: SHELL -c SCRIPT), new_command_on_retry and
// on_retry_command as there (on_retry_command by cmd.exe whatever the
// shell), and Git Bash's path conversion off for retry's command line.
func TestActionWindowsShells(t *testing.T) {
	a := loadAction(t)
	python := "python"
	if _, err := exec.LookPath("python"); err != nil {
		python = "python3" // the step's own choice where there is no python
	}
	const script = `echo a "b c" & exit 3`
	const gitBash = `eval "$RETRY_ACTION_MSYS_ENV"; unset RETRY_ACTION_MSYS_ENV; exec bash -c "$1"`
	const pickCmd = `cmd /d /v:on /s /c "if %RETRY_ATTEMPT% GTR 1 (cmd /d /s /c "!RETRY_INPUT_NEW_COMMAND_ON_RETRY!") else (cmd /d /s /c "!RETRY_INPUT_COMMAND!")"`
	for _, c := range []struct {
		os   string
		with map[string]string
		want []string // after --
		hook string
	}{
		{"Windows", map[string]string{"shell": "cmd"}, []string{"cmd", "/d", "/s", "/c", script}, ""},
		{"Windows", map[string]string{"shell": ""}, []string{"powershell", "-c", script}, ""},
		{"Windows", map[string]string{"shell": "powershell"}, []string{"powershell", "-c", script}, ""},
		{"Windows", map[string]string{"shell": "pwsh"}, []string{"pwsh", "-c", script}, ""},
		{"Windows", map[string]string{"shell": "python"}, []string{python, "-c", script}, ""},
		{"Windows", map[string]string{"shell": "bash"}, []string{"bash", "-c", gitBash, "bash", script}, ""},
		{"Linux", map[string]string{"shell": ""}, []string{"bash", "-c", script}, ""},
		{"Linux", map[string]string{"shell": "pwsh"}, []string{"pwsh", "-c", script}, ""},
		{"Windows", map[string]string{"shell": "cmd", "new_command_on_retry": "echo new & exit 4"},
			[]string{"cmd", "/d", "/s", "/c", pickCmd}, ""},
		{"Windows", map[string]string{"shell": "pwsh", "new_command_on_retry": "exit 4"},
			[]string{"bash", "-c", pickByAttempt, "retry-action", "pwsh", "-c"}, ""},
		{"Windows", map[string]string{"shell": "bash", "new_command_on_retry": "exit 4"},
			[]string{"bash", "-c", pickByAttempt, "retry-action", "bash", "-c", gitBash, "bash"}, ""},
		{"Windows", map[string]string{"shell": "pwsh", "on_retry_command": `del "%TEMP%\it's.lock"`},
			[]string{"pwsh", "-c", script}, `cmd /d /s /c 'del "%TEMP%\it'\''s.lock"'`},
		{"Linux", map[string]string{"shell": "bash", "on_retry_command": "rm -f it's"},
			[]string{"bash", "-c", script}, `/bin/sh -c 'eval "$RETRY_INPUT_ON_RETRY_COMMAND"'`},
	} {
		with := map[string]string{"timeout_seconds": "5", "command": script}
		for k, v := range c.with {
			with[k] = v
		}
		r := newRunner(t, with)
		r.env = append(r.env, "RUNNER_OS="+c.os, "MSYS2_ARG_CONV_EXCL=--foo")
		recordingRetry(t, r)
		log, code := r.run(a.Runs.Steps[1])
		if code != 0 {
			t.Errorf("%s %v: status %d:\n%s", c.os, c.with, code, log)
			continue
		}
		_, hook, target := recorded(t, r)
		if fmt.Sprintf("%q", target) != fmt.Sprintf("%q", c.want) || hook != c.hook {
			t.Errorf("%s %v: retry run ... --on-retry %q -- %q\nwant --on-retry %q -- %q", c.os, c.with, hook, target, c.hook, c.want)
		}
		env := readFile(t, filepath.Join(r.dir, "env"))
		want := "MSYS2_ARG_CONV_EXCL=--foo\n"
		if c.os == "Windows" {
			want = "MSYS2_ARG_CONV_EXCL=*\nMSYS_NO_PATHCONV=1\nRETRY_ACTION_MSYS_ENV=unset MSYS_NO_PATHCONV; export MSYS2_ARG_CONV_EXCL=--foo; \n"
		}
		if env != want {
			t.Errorf("%s %v: retry's environment has\n%s\nwant\n%s", c.os, c.with, env, want)
		}
	}
}

// TestActionWindowsRefusesShells: sh on a Windows runner, cmd and
// powershell elsewhere, as nick-fields/retry refuses them; here as every
// refused input: one ::error line naming it, exit 125, nothing run.
func TestActionWindowsRefusesShells(t *testing.T) {
	a := loadAction(t)
	for _, c := range []struct {
		os, shell, line string
	}{
		{"Windows", "sh", `::error title=retry::shell: "sh" is not allowed on Windows runners (nor by nick-fields/retry): want bash (Git Bash), pwsh, python, cmd or powershell`},
		{"Windows", "fish", `::error title=retry::shell: "fish": want bash (Git Bash), pwsh, python, cmd or powershell`},
		{"Windows", "cmd /k", `::error title=retry::shell: "cmd /k": want bash (Git Bash), pwsh, python, cmd or powershell`},
		{"Linux", "cmd", `::error title=retry::shell: "cmd" runs on Windows runners only (as with nick-fields/retry): want bash, sh, python or pwsh`},
		{"Linux", "powershell", `::error title=retry::shell: "powershell" runs on Windows runners only (as with nick-fields/retry): want bash, sh, python or pwsh`},
		{"macOS", "cmd", `::error title=retry::shell: "cmd" runs on Windows runners only (as with nick-fields/retry): want bash, sh, python or pwsh`},
	} {
		r := newRunner(t, map[string]string{"timeout_seconds": "5", "shell": c.shell, "command": "exit 0"})
		r.env = append(r.env, "RUNNER_OS="+c.os)
		recordingRetry(t, r)
		log, code := r.run(a.Runs.Steps[1])
		o := r.actionOutputs(a)
		if _, err := os.Stat(filepath.Join(r.dir, "argv")); err == nil {
			t.Errorf("%s shell %q: retry ran", c.os, c.shell)
		}
		if code != 125 || log != c.line+"\n" || o["exit_code"] != "125" || o["outcome"] != "not run" {
			t.Errorf("%s shell %q: status %d, outputs %v, log:\n%s\nwant 125 and the line %s", c.os, c.shell, code, o, log, c.line)
		}
	}
}

// TestActionWindowsDownloadsRelease: on a Windows runner the install step
// takes the zip for the runner's architecture, checks it against
// checksums.txt and installs the retry.exe it holds.
func TestActionWindowsDownloadsRelease(t *testing.T) {
	if _, err := exec.LookPath("unzip"); err != nil {
		t.Skip("no unzip on PATH (Git Bash has it; .ci/run installs it)")
	}
	a := loadAction(t)
	archive := zipOf(t, "retry.exe", "#!/bin/sh\necho 'retry version 9.8.7 (windows/arm64)'\n")
	name := "retry_9.8.7_windows_arm64.zip"
	checksums := fmt.Sprintf("%x  %s\n%x  retry_9.8.7_windows_amd64.zip\n", sha256.Sum256(archive), name, sha256.Sum256(nil))
	mux := http.NewServeMux()
	mux.HandleFunc("/retry-dev/retry/releases/download/v9.8.7/"+name, func(w http.ResponseWriter, r *http.Request) {
		w.Write(archive)
	})
	mux.HandleFunc("/retry-dev/retry/releases/download/v9.8.7/checksums.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(checksums))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	r := newRunner(t, map[string]string{"command": "true", "version": "9.8.7"})
	r.github["server_url"] = srv.URL
	r.env = append(r.env, "RUNNER_OS=Windows", "RUNNER_ARCH=ARM64")
	out, code := r.run(a.Runs.Steps[0])
	if code != 0 || !strings.Contains(out, "retry version 9.8.7 (windows/arm64)") {
		t.Fatalf("install step: status %d:\n%s", code, out)
	}
	if len(r.path) != 1 {
		t.Fatalf("GITHUB_PATH holds %v, want the install directory", r.path)
	}
	if fi, err := os.Stat(filepath.Join(r.path[0], "retry.exe")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("no executable retry.exe in %s: %v", r.path[0], err)
	}
}

func zipOf(t *testing.T, name, content string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range []struct{ name, body string }{{"README.md", "readme\n"}, {name, content}} {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestActionWindowsCmdUnderWine runs the retry step with RUNNER_OS=Windows
// and shell: cmd against retry.exe (GOOS=windows) under Wine, through a
// retry on PATH that starts it with .ci/wine/wine-exec: the attempts run
// in Wine's cmd.exe, the command, new_command_on_retry and
// on_retry_command each as written (quotes, &, %VAR%). A Linux parent sees
// only the low 8 bits of a Wine process's status, as Git Bash's $? does of
// a Windows program's: the outputs carry retry's whole status.
func TestActionWindowsCmdUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds retry.exe and runs Wine")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	wine, err := filepath.Abs("../../.ci/wine/wine-exec")
	if err != nil {
		t.Fatal(err)
	}
	a := loadAction(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "retry.exe")
	build := exec.Command("go", "build", "-trimpath", "-o", exe, "../..")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=windows go build: %v\n%s", err, out)
	}
	if out, err := exec.Command(wine, exe, "version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "retry version") {
		t.Skipf(".ci/wine/wine-exec cannot run retry.exe (Wine is not installed here: .ci/wine/setup.sh installs it): %v\n%s", err, out)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	wrapper := fmt.Sprintf("#!/bin/sh\nexec %q %q \"$@\"\n", wine, exe)
	if err := os.WriteFile(filepath.Join(bin, "retry"), []byte(wrapper), 0o700); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		with    map[string]string
		code    int
		log     []string
		outputs string
	}{
		{map[string]string{"command": `echo a "b c" & exit 3`, "max_attempts": "1"}, 3,
			[]string{"::group::attempt 1/1\na \"b c\" \r\n"},
			"map[attempts:1 exit-code:3 exit_code:3 exit_error:attempts exhausted after 1 attempts: the last attempt exited 3 outcome:attempts exhausted total_attempts:1]"},
		{map[string]string{"command": `echo first "x y" %RETRY_ATTEMPT% & exit 3`, "max_attempts": "2",
			"new_command_on_retry": `echo new "d & e" %RETRY_ATTEMPT% ^& ok) & exit 4`,
			"on_retry_command":     `echo hook 'f g' %RETRY_EXIT_CODE% & exit 9`}, 4,
			[]string{"first \"x y\" 1 \r\n", "hook 'f g' 3 \r\n", "new \"d & e\" 2 & ok) \r\n"},
			"map[attempts:2 exit-code:4 exit_code:4 exit_error:attempts exhausted after 2 attempts: the last attempt exited 4 outcome:attempts exhausted total_attempts:2]"},
		// 256 reaches the step's bash as 0 (Git Bash keeps 8 bits as well):
		// the outputs carry retry's whole status and the step still fails.
		{map[string]string{"command": `exit 256`, "max_attempts": "1"}, 1, nil,
			"map[attempts:1 exit-code:256 exit_code:256 exit_error:attempts exhausted after 1 attempts: the last attempt exited 256 outcome:attempts exhausted total_attempts:1]"},
		// A timed-out attempt (ping.exe stands in for a hung tool; the
		// job ends it): nick-fields/retry's final timeout, 1.
		{map[string]string{"command": `echo waiting & ping -n 120 127.0.0.1 >NUL & echo not stopped`, "max_attempts": "1", "timeout_seconds": "2"}, 1,
			[]string{"waiting \r\n"},
			"map[attempts:1 exit-code:1 exit_code:1 exit_error:attempts exhausted after 1 attempts: the last attempt timed out outcome:attempts exhausted total_attempts:1]"},
	} {
		with := map[string]string{"shell": "cmd", "timeout_seconds": "120", "retry_wait_seconds": "0.01"}
		for k, v := range c.with { // (a case's timeout_seconds wins)
			with[k] = v
		}
		r := newRunner(t, with)
		r.path = []string{bin}
		r.env = append(r.env, "RUNNER_OS=Windows")
		log, code := r.run(a.Runs.Steps[1])
		if code != c.code {
			t.Errorf("%v: status %d, want %d:\n%q", c.with, code, c.code, log)
		}
		for _, l := range c.log {
			if !strings.Contains(log, l) {
				t.Errorf("%v: the log has no %q:\n%q", c.with, l, log)
			}
		}
		if strings.Contains(log, "not stopped") {
			t.Errorf("%v: the attempt was not stopped by its timeout:\n%q", c.with, log)
		}
		if got := fmt.Sprint(r.actionOutputs(a)); got != c.outputs {
			t.Errorf("%v: outputs %s\nwant    %s", c.with, got, c.outputs)
		}
	}
}
