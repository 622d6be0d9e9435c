//go:build windows

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/windows"

	"github.com/retry-dev/retry/cmd"
	"github.com/retry-dev/retry/internal/testdir"
)

// The Windows script harness, run under Wine in CI (.ci/run): the scripts
// testdata/script/windows_*.txtar, which skip elsewhere, and the scripts of
// windowsPortableScripts, which run unchanged on every OS. Like the Unix
// harness (script_test.go), every program a script runs is this test
// binary under another name: retry (the real entry point, cmd.Main) and
// the helpers below.

// scriptPrograms are the programs scripts run with exec, copied as
// NAME.exe into a directory put first on PATH.
var scriptPrograms = map[string]func(){
	"retry":     func() { os.Exit(cmd.Main()) },
	"scripted":  scriptedMain,
	"sleeper":   sleeperMain,
	"spawn":     spawnMain,
	"touchwait": touchwaitMain,
	"exitwith":  exitwithMain,
	"trapbreak": trapbreakMain,
	// Shells named by --shell-path: each prints the arguments it was given.
	"pwsh":       argvMain,
	"powershell": argvMain,
	"bash":       argvMain,
}

// scriptCommands are the custom script commands.
var scriptCommands = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"status":     cmdStatus,
	"start":      cmdStart,
	"waitexit":   cmdWaitExit,
	"waitfile":   cmdWaitFile,
	"waitstderr": cmdWaitStderr,
	"gone":       cmdGone,
	"count":      cmdCount,
	"terminate":  cmdTerminate,
	"grant":      cmdGrant,
	"grantees":   cmdGrantees,
	"quote":      cmdQuote,
	"ctrlbreak":  cmdCtrlBreak,
}

// windowsPortableScripts are the scripts of testdata/script that run
// unchanged on Windows: retry, the helper programs above and the data
// paths of setDataPaths, the scripted HTTP server (httpserver), no Unix
// tool, no Unix path, no help text (whose wrapping and defaults differ
// there). All of the others were tried under Wine: each wants a Unix tool
// (sh, a FIFO, signals, modes), a server this harness does not start
// (Redis, moto, a TCP helper, the control plane), or prints a Unix path.
var windowsPortableScripts = []string{
	"completion_domain", "http_acceptors", "http_attempt_timeout", "http_body_replay",
	"http_failure_body_stderr", "http_idempotency_key_value", "http_idempotent", "http_max_output",
	"http_redirect_loop", "http_redirects", "http_report", "http_request_timeout_transient",
	"http_retry_after_dates", "http_retry_after_garbage", "http_retry_after_max_time",
	"http_retry_after_ms", "http_retry_after_seconds", "http_status_failure", "http_status_retry",
	"http_throttling", "http_tls", "http_verbose", "http_wait_failure_state", "http_wait_readiness",
	"http_wait_status", "http_wait_waiter_model", "run_acceptor_error", "run_acceptor_exit",
	"run_acceptor_order", "run_acceptor_output", "run_attempt_timeout_kills_group", "run_bad_input",
	"run_consecutive", "run_contradictions", "run_env_defaults", "run_fallbacks",
	"run_jitter_defaults", "run_max_time", "run_quiet_and_json_log", "run_schedule",
	"run_success_on_third", "run_tcp_bad_address", "run_unknown_command_suggestion",
	"run_unknown_flag_suggestions", "run_unlimited_attempts", "run_verbose_everywhere",
	"run_verbose_fallback", "scope_adaptive_throttle_delay", "state_busy", "state_command_changed",
	"usage_errors_redact_values", "version", "wait_acceptor_order", "wait_backquote_literal",
	"wait_bad_expression", "wait_botocore_agreement", "wait_builtin_waiters", "wait_compare_all",
	"wait_compare_any", "wait_compare_path", "wait_delay_zero", "wait_empty_stdout",
	"wait_error_codes", "wait_eval_warning", "wait_failure_state", "wait_fallbacks",
	"wait_give_up_attempts", "wait_give_up_time", "wait_help_defaults", "wait_jmespath_spec",
	"wait_list_waiters_acm_pca", "wait_list_waiters_autoscaling", "wait_list_waiters_cloudformation",
	"wait_list_waiters_cloudfront", "wait_list_waiters_codedeploy", "wait_list_waiters_dynamodb",
	"wait_list_waiters_ec2", "wait_list_waiters_ecr", "wait_list_waiters_ecs",
	"wait_list_waiters_eks", "wait_list_waiters_elbv2", "wait_list_waiters_emr",
	"wait_list_waiters_kinesis", "wait_list_waiters_lambda", "wait_list_waiters_neptune_graph",
	"wait_list_waiters_rds", "wait_list_waiters_route53", "wait_list_waiters_s3",
	"wait_list_waiters_sagemaker", "wait_list_waiters_ssm",
	"wait_model_cloudformation_stack_create_complete", "wait_model_dynamodb_table_exists",
	"wait_model_ec2_instance_running", "wait_model_lambda_function_exists",
	"wait_model_s3_bucket_exists", "wait_model_ssm_command_executed", "wait_no_acceptor",
	"wait_not_json", "wait_not_yet_log", "wait_query", "wait_query_output_text",
	"wait_query_unevaluable", "wait_quiet", "wait_smithy_http_error", "wait_smithy_validation",
	"wait_split_rule", "wait_status_codes", "wait_success_sequence", "wait_unmatched_error",
	"wait_value_rule", "wait_verbose", "wait_watch_usage",
}

// scriptWorkRoot holds the scripts' work directories (see TestMain).
var scriptWorkRoot string

// TestMain does what testscript.Main does, but removes its directories
// file by file: Go's os.RemoveAll deletes with POSIX semantics
// (FILE_DISPOSITION_POSIX_SEMANTICS), which Wine 8 refuses ("Invalid
// function"), so testscript's own cleanup (and t.TempDir's) would fail the
// run after every script passed.
func TestMain(m *testing.M) {
	if main := scriptPrograms[strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")]; main != nil {
		main()
		os.Exit(0)
	}
	os.Exit(runScriptsMain(m))
}

func runScriptsMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "retry-scripts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer removeTree(dir)
	bin := filepath.Join(dir, "bin")
	scriptWorkRoot = filepath.Join(dir, "work")
	self, err := os.Executable()
	if err == nil {
		err = os.Mkdir(bin, 0o700)
	}
	if err == nil {
		err = os.Mkdir(scriptWorkRoot, 0o700)
	}
	// One copy of this binary, bin/retry.exe, and the other names hard
	// links to it: a link to the running test binary itself could not be
	// removed at the end.
	first := filepath.Join(bin, "retry.exe")
	if err == nil {
		err = copyProgram(self, first)
	}
	for name := range scriptPrograms {
		if p := filepath.Join(bin, name+".exe"); err == nil && p != first {
			if os.Link(first, p) != nil {
				err = copyProgram(first, p)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return m.Run()
}

// copyProgram copies the program from to to.
func copyProgram(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// removeTree removes dir with testdir.RemoveTree, saying on stderr what it
// could not remove (a cleanup that fails fails no script).
func removeTree(dir string) {
	if err := testdir.RemoveTree(dir); err != nil {
		fmt.Fprintln(os.Stderr, "cleanup:", err)
	}
}

// windowsEnv are the variables of the test process that Windows programs
// need (cmd.exe, CreateProcess's search of PATHEXT), passed to scripts,
// and Wine's WINEDEBUG (.ci/wine/wine-exec turns its noise off).
var windowsEnv = []string{"SystemRoot", "windir", "SystemDrive", "ComSpec", "PATHEXT", "WINEDEBUG"}

func TestScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "script", "windows_*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range windowsPortableScripts {
		files = append(files, filepath.Join("testdata", "script", name+".txtar"))
	}
	slices.Sort(files)
	testscript.Run(t, testscript.Params{
		Files:               files,
		WorkdirRoot:         scriptWorkRoot,
		Cmds:                scriptCommands,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Condition: func(cond string) (bool, error) {
			if cond == "console" { // ctrlbreak can reach a process group
				return canBreak(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			// WorkdirRoot makes testscript keep the work directory: ours
			// to remove, file by file.
			env.Defer(func() { removeTree(env.WorkDir) })
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(strings.ToUpper(k), "RETRY_") {
					env.Setenv(k, "")
				}
			}
			for _, k := range windowsEnv {
				if v, ok := os.LookupEnv(k); ok {
					env.Setenv(k, v)
				}
			}
			env.Setenv("RETRY_STATE_DIR", filepath.Join(env.WorkDir, ".state"))
			return setDataPaths(env)
		},
	})
}

// processAlive reports whether process pid exists and has not ended.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false // no such process any more
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == uint32(windows.WAIT_TIMEOUT)
}

// hasConsole reports whether this process has a console: without one (go
// test -exec under Wine), no CTRL_BREAK_EVENT can be generated.
func hasConsole() bool {
	var mode uint32
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		if windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil {
			return true
		}
	}
	return false
}

// canBreak reports whether CTRL_BREAK_EVENT can be sent to a process group
// here: there is a console, and a probe (ping.exe in a group of its own,
// ended by its pid after) accepts the event. Under a pty Wine 8 gives a
// console, yet GenerateConsoleCtrlEvent fails there with "Invalid handle".
var canBreak = sync.OnceValue(func() bool {
	if !hasConsole() {
		return false
	}
	probe := exec.Command("ping", "-n", "30", "127.0.0.1")
	probe.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	if probe.Start() != nil {
		return false
	}
	defer probe.Wait()
	defer probe.Process.Kill()
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(probe.Process.Pid)) == nil
})
