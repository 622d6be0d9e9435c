package waitermodel

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/jmes"
)

// stdoutAttempt is a command attempt that exited 0 and printed out.
func stdoutAttempt(out string) *acceptor.Attempt {
	return &acceptor.Attempt{Number: 1, Stdout: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(out)), nil }}
}

// errorAttempt is an AWS CLI attempt that failed with an error code.
func errorAttempt(code string) *acceptor.Attempt {
	return &acceptor.Attempt{Number: 1, Failed: true, ExitCode: 254, ErrorCode: code}
}

// load parses the model file at path.
func load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

func loadWaiter(t *testing.T, file, name string) *Model {
	t.Helper()
	f, err := load(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.Model(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// waitChain is the chain retry wait builds for w alone.
func waitChain(w *Model, input any) *acceptor.Chain {
	c := &acceptor.Chain{Acceptors: w.Acceptors, Fallback: acceptor.WaitFallback, Input: input}
	c.Decode = jmes.DecoderFor(c)
	return c
}

// TestWaiterModelsLoad loads every model of testdata/waiter-models and
// checks each waiter against the file itself: names, timing, one acceptor
// per model acceptor, and the acceptor names.
func TestWaiterModelsLoad(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/waiter-models/*-waiters-2.json")
	if err != nil || len(files) != 20 {
		t.Fatalf("want the 20 models, got %d (%v)", len(files), err)
	}
	total := 0
	for _, file := range files {
		f, err := load(file)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if f.Smithy {
			t.Errorf("%s: Smithy %v", file, f.Smithy)
		}
		raw, _ := os.ReadFile(file)
		var m struct {
			Waiters map[string]struct {
				Delay       float64
				MaxAttempts int
				Operation   string
				Acceptors   []json.RawMessage
			}
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		var want []string
		for n := range m.Waiters {
			want = append(want, n)
		}
		sort.Strings(want)
		if got := f.Names(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Names() = %v, want %v", file, got, want)
		}
		for _, name := range want {
			w, err := f.Model(name)
			if err != nil {
				t.Errorf("%s: %v", file, err)
				continue
			}
			mw := m.Waiters[name]
			if w.Name != name || w.Delay != time.Duration(mw.Delay*float64(time.Second)) || w.MaxAttempts != mw.MaxAttempts ||
				w.Operation != mw.Operation || w.Smithy || w.MinDelay != 0 || w.MaxDelay != 0 {
				t.Errorf("%s %s: got %+v", file, name, w)
			}
			if len(w.Acceptors) != len(mw.Acceptors) {
				t.Errorf("%s %s: %d acceptors, want %d", file, name, len(w.Acceptors), len(mw.Acceptors))
			}
			for i, a := range w.Acceptors {
				prefix := "waiter " + name + " acceptor " + strconv.Itoa(i+1) + " ("
				if !strings.HasPrefix(a.Name, prefix) || a.Matcher == nil {
					t.Errorf("%s: acceptor name %q", file, a.Name)
				}
				total++
			}
		}
	}
	if total != 418 {
		t.Errorf("%d acceptors in all, want 418", total)
	}
}

func TestWaiterAcceptorNames(t *testing.T) {
	t.Parallel()
	w := loadWaiter(t, "waiter-models/ec2-waiters-2.json", "InstanceRunning")
	want := []string{
		`waiter InstanceRunning acceptor 1 (pathAll "Reservations[].Instances[].State.Name" = "running")`,
		`waiter InstanceRunning acceptor 2 (pathAny "Reservations[].Instances[].State.Name" = "shutting-down")`,
		`waiter InstanceRunning acceptor 3 (pathAny "Reservations[].Instances[].State.Name" = "terminated")`,
		`waiter InstanceRunning acceptor 4 (pathAny "Reservations[].Instances[].State.Name" = "stopping")`,
		`waiter InstanceRunning acceptor 5 (error "InvalidInstanceID.NotFound")`,
	}
	for i, a := range w.Acceptors {
		if a.Name != want[i] {
			t.Errorf("acceptor %d: %q, want %q", i+1, a.Name, want[i])
		}
	}
	s3 := loadWaiter(t, "waiter-models/s3-waiters-2.json", "BucketExists")
	if s3.Acceptors[3].Name != "waiter BucketExists acceptor 4 (status 404)" {
		t.Errorf("got %q", s3.Acceptors[3].Name)
	}
	l := loadWaiter(t, "waiter-models/lambda-waiters-2.json", "FunctionExists")
	if l.Acceptors[0].Name != "waiter FunctionExists acceptor 1 (error false)" {
		t.Errorf("got %q", l.Acceptors[0].Name)
	}
	if !strings.HasPrefix(l.Documentation, "") || loadWaiter(t, "waiter-models/lambda-waiters-2.json", "FunctionActive").Documentation == "" {
		t.Error("the botocore description is lost")
	}
}

// waiterCase is an attempt and what the chain of a waiter must decide.
type waiterCase struct {
	name   string
	a      *acceptor.Attempt
	want   acceptor.Directive
	by     int // 1-based acceptor, 0 for the fallback
	detail string
}

func runWaiterCases(t *testing.T, c *acceptor.Chain, cases []waiterCase) {
	t.Helper()
	for _, tt := range cases {
		d := c.Evaluate(tt.a)
		by := 0
		if d.Source == acceptor.FromAcceptor {
			by = d.Acceptor + 1
		} else if d.Source != acceptor.FromFallback {
			t.Errorf("%s: decided by %v, want an acceptor or the fallback", tt.name, d.Source)
		}
		if d.Directive != tt.want || by != tt.by {
			t.Errorf("%s: got %v by %q (%q, warnings %q), want %v by acceptor %d", tt.name, d.Directive, d.Name, d.Value, d.Warnings, tt.want, tt.by)
		}
		if tt.detail != "" && d.Detail != tt.detail {
			t.Errorf("%s: detail %q, want %q", tt.name, d.Detail, tt.detail)
		}
	}
}

func TestWaiterInstanceRunning(t *testing.T) {
	t.Parallel()
	c := waitChain(loadWaiter(t, "waiter-models/ec2-waiters-2.json", "InstanceRunning"), nil)
	inst := func(states ...string) *acceptor.Attempt {
		var parts []string
		for _, s := range states {
			parts = append(parts, `{"Instances":[{"InstanceId":"i-1","State":{"Code":0,"Name":"`+s+`"}}]}`)
		}
		return stdoutAttempt(`{"Reservations":[` + strings.Join(parts, ",") + `]}`)
	}
	runWaiterCases(t, c, []waiterCase{
		{"all running", inst("running", "running"), acceptor.Succeed, 1,
			`every element of Reservations[].Instances[].State.Name is "running"`},
		{"one pending", inst("running", "pending"), acceptor.RetryServer, 0, ""},
		{"one terminated", inst("running", "terminated"), acceptor.Fail, 3,
			`some element of Reservations[].Instances[].State.Name is "terminated"`},
		{"no reservations", stdoutAttempt(`{"Reservations":[]}`), acceptor.RetryServer, 0, ""},
		{"empty stdout", stdoutAttempt(""), acceptor.RetryServer, 0, ""},
		{"not found yet", errorAttempt("InvalidInstanceID.NotFound"), acceptor.RetryServer, 5, ""},
		{"access denied", errorAttempt("UnauthorizedOperation"), acceptor.Fail, 0, ""},
	})
}

// TestWaiterServicesStableOrder: with services [] the success expression
// is true too, so the failures[].reason == MISSING failure acceptor must
// come first, as it does in the model.
func TestWaiterServicesStableOrder(t *testing.T) {
	t.Parallel()
	c := waitChain(loadWaiter(t, "waiter-models/ecs-waiters-2.json", "ServicesStable"), nil)
	svc := func(status string, deployments, running, desired int) string {
		return `{"serviceName":"web","status":"` + status + `","deployments":[` + strings.TrimSuffix(strings.Repeat(`{"id":"d"},`, deployments), ",") +
			`],"runningCount":` + strconv.Itoa(running) + `,"desiredCount":` + strconv.Itoa(desired) + `}`
	}
	runWaiterCases(t, c, []waiterCase{
		{"missing service", stdoutAttempt(`{"services":[],"failures":[{"arn":"x","reason":"MISSING"}]}`), acceptor.Fail, 1, ""},
		{"no services, no failures", stdoutAttempt(`{"services":[],"failures":[]}`), acceptor.Succeed, 4,
			"length(services[?!(length(deployments) == `1` && runningCount == desiredCount)]) == `0` is true"},
		{"stable", stdoutAttempt(`{"services":[` + svc("ACTIVE", 1, 3, 3) + `],"failures":[]}`), acceptor.Succeed, 4, ""},
		{"deploying", stdoutAttempt(`{"services":[` + svc("ACTIVE", 2, 3, 3) + `],"failures":[]}`), acceptor.RetryServer, 0, ""},
		{"scaling", stdoutAttempt(`{"services":[` + svc("ACTIVE", 1, 2, 3) + `]}`), acceptor.RetryServer, 0, ""},
		{"draining", stdoutAttempt(`{"services":[` + svc("DRAINING", 1, 3, 3) + `]}`), acceptor.Fail, 2, ""},
		{"inactive", stdoutAttempt(`{"services":[` + svc("ACTIVE", 1, 3, 3) + `,` + svc("INACTIVE", 1, 0, 0) + `]}`), acceptor.Fail, 3, ""},
	})
}

// TestWaiterAutoscalingPathAllOnScalars: the Go v1 SDK's autoscaling model
// applies pathAll to a number and to a boolean. Under botocore rules
// pathAll never matches anything but a non-empty array, so these waiters
// never reach a state by their path acceptors: the attempts are retried.
func TestWaiterAutoscalingPathAllOnScalars(t *testing.T) {
	t.Parallel()
	groups := func(n int, inService bool) *acceptor.Attempt {
		state := "Pending"
		if inService {
			state = "InService"
		}
		var g []string
		for range n {
			g = append(g, `{"MinSize":1,"Instances":[{"LifecycleState":"`+state+`"}]}`)
		}
		return stdoutAttempt(`{"AutoScalingGroups":[` + strings.Join(g, ",") + `]}`)
	}
	for _, name := range []string{"GroupExists", "GroupNotExists", "GroupInService"} {
		c := waitChain(loadWaiter(t, "waiter-models/autoscaling-waiters-2.json", name), nil)
		runWaiterCases(t, c, []waiterCase{
			{name + " with one group in service", groups(1, true), acceptor.RetryServer, 0, ""},
			{name + " with one group pending", groups(1, false), acceptor.RetryServer, 0, ""},
			{name + " with no group", groups(0, false), acceptor.RetryServer, 0, ""},
		})
		d := c.Evaluate(groups(1, true))
		if len(d.Warnings) != 0 {
			t.Errorf("%s: warnings %q", name, d.Warnings)
		}
	}
	// The values the path acceptors saw: a number and a boolean.
	c := waitChain(loadWaiter(t, "waiter-models/autoscaling-waiters-2.json", "GroupInService"), nil)
	d := c.Evaluate(groups(1, true))
	if d.Trace[0].Value != "false" || d.Trace[1].Value != "false" {
		t.Errorf("trace %+v", d.Trace)
	}
}

func TestWaiterStatusAndErrorAcceptors(t *testing.T) {
	t.Parallel()
	exists := waitChain(loadWaiter(t, "waiter-models/s3-waiters-2.json", "BucketExists"), nil)
	runWaiterCases(t, exists, []waiterCase{
		{"head-bucket ok", stdoutAttempt(""), acceptor.Succeed, 1, ""},
		{"403", errorAttempt("403"), acceptor.Succeed, 3, ""},
		{"404", errorAttempt("404"), acceptor.RetryServer, 4, ""},
		{"500", errorAttempt("500"), acceptor.Fail, 0, ""},
	})
	fn := waitChain(loadWaiter(t, "waiter-models/lambda-waiters-2.json", "FunctionExists"), nil)
	runWaiterCases(t, fn, []waiterCase{
		{"found", stdoutAttempt(`{"Configuration":{}}`), acceptor.Succeed, 1, ""},
		{"not yet", errorAttempt("ResourceNotFoundException"), acceptor.RetryServer, 2, ""},
		{"denied", errorAttempt("AccessDeniedException"), acceptor.Fail, 0, ""},
	})
	active := waitChain(loadWaiter(t, "waiter-models/lambda-waiters-2.json", "FunctionActiveV2"), nil)
	runWaiterCases(t, active, []waiterCase{
		{"active", stdoutAttempt(`{"Configuration":{"State":"Active"}}`), acceptor.Succeed, 1,
			`Configuration.State is "Active"`},
		{"pending", stdoutAttempt(`{"Configuration":{"State":"Pending"}}`), acceptor.RetryServer, 3, ""},
		{"not JSON", stdoutAttempt(`Active`), acceptor.RetryServer, 0, ""},
	})
	d := active.Evaluate(stdoutAttempt("Active"))
	// One warning: the same problem is reported once, by the first acceptor
	// that hit it.
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "stdout is not JSON: ") {
		t.Errorf("warnings %q", d.Warnings)
	}
}

func TestSmithyModel(t *testing.T) {
	t.Parallel()
	f, err := load("testdata/smithy-model.json")
	if err != nil {
		t.Fatal(err)
	}
	if !f.Smithy {
		t.Error("not detected as Smithy")
	}
	if got := f.Names(); !reflect.DeepEqual(got, []string{"FleetReady", "GroupsMatch", "ThingDeleted", "ThingExists"}) {
		t.Errorf("Names() = %q", got)
	}
	w := loadWaiter(t, "smithy-model.json", "ThingExists")
	if !w.Smithy || w.Operation != "GetThing" || w.MinDelay != 5*time.Second || w.MaxDelay != 120*time.Second ||
		w.Delay != 0 || w.MaxAttempts != 0 || w.Documentation != "Waits until a thing has been created" || w.UsesInput {
		t.Errorf("ThingExists: %+v", w)
	}
	wantNames := []string{
		`waiter ThingExists acceptor 1 (output stringEquals "status" = "failed")`,
		`waiter ThingExists acceptor 2 (output stringEquals "status" = "success")`,
		`waiter ThingExists acceptor 3 (errorType "smithy.example#NotFound")`,
	}
	for i, a := range w.Acceptors {
		if a.Name != wantNames[i] {
			t.Errorf("acceptor %d: %q, want %q", i+1, a.Name, wantNames[i])
		}
	}
	runWaiterCases(t, waitChain(w, nil), []waiterCase{
		{"created", stdoutAttempt(`{"status":"success"}`), acceptor.Succeed, 2, ""},
		{"failed", stdoutAttempt(`{"status":"failed"}`), acceptor.Fail, 1, ""},
		{"creating", stdoutAttempt(`{"status":"creating"}`), acceptor.RetryServer, 0, ""},
		{"not found: the name after #", errorAttempt("NotFound"), acceptor.RetryServer, 3, ""},
		{"other error", errorAttempt("AccessDenied"), acceptor.Fail, 0, ""},
		{"throttling: polled again", errorAttempt("Throttling"), acceptor.RetryThrottle, 0, ""},
	})

	del := loadWaiter(t, "smithy-model.json", "ThingDeleted")
	if del.MinDelay != 10*time.Second || del.MaxDelay != time.Minute {
		t.Errorf("ThingDeleted delays %v %v", del.MinDelay, del.MaxDelay)
	}
	runWaiterCases(t, waitChain(del, nil), []waiterCase{
		{"gone", errorAttempt("NotFound"), acceptor.Succeed, 1, ""},
		{"success false: any other error", errorAttempt("AccessDenied"), acceptor.Fail, 2, ""},
		{"still there", stdoutAttempt(`{"status":"success"}`), acceptor.RetryServer, 0, ""},
	})

	fleet := loadWaiter(t, "smithy-model.json", "FleetReady")
	if fleet.Operation != "DescribeFleet" || fleet.MinDelay != 3*time.Second || fleet.MaxDelay != 3*time.Second {
		t.Errorf("FleetReady: %+v", fleet)
	}
	runWaiterCases(t, waitChain(fleet, nil), []waiterCase{
		{"all ready", stdoutAttempt(`{"nodes":[{"state":"ready"},{"state":"ready"}]}`), acceptor.Succeed, 1, ""},
		{"one broken", stdoutAttempt(`{"nodes":[{"state":"ready"},{"state":"broken"}]}`), acceptor.Fail, 2, ""},
		{"no nodes: success true", stdoutAttempt(`{"nodes":[]}`), acceptor.Succeed, 3, ""},
	})
}

// TestSmithyInputOutput: inputOutput paths see {"input", "output"}; output
// paths of the same waiter see the output, whether or not the chain has an
// Input.
func TestSmithyInputOutput(t *testing.T) {
	t.Parallel()
	w := loadWaiter(t, "smithy-model.json", "GroupsMatch")
	if !w.UsesInput {
		t.Error("UsesInput false")
	}
	in := map[string]any{"groups": []any{"a", "b"}}
	runWaiterCases(t, waitChain(w, in), []waiterCase{
		{"as many groups", stdoutAttempt(`{"groups":[{"id":1},{"id":2}],"truncated":true}`), acceptor.Succeed, 1, ""},
		{"fewer, truncated", stdoutAttempt(`{"groups":[{"id":1}],"truncated":true}`), acceptor.Fail, 2, ""},
		{"fewer", stdoutAttempt(`{"groups":[{"id":1}],"truncated":false}`), acceptor.RetryServer, 0, ""},
	})
	// Without an input, input is {}: length(null) is a runtime error.
	c := waitChain(w, nil)
	runWaiterCases(t, c, []waiterCase{
		{"no input, truncated", stdoutAttempt(`{"groups":[],"truncated":true}`), acceptor.Fail, 2, ""},
	})
	d := c.Evaluate(stdoutAttempt(`{"groups":[],"truncated":false}`))
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "evaluating") {
		t.Errorf("warnings %q", d.Warnings)
	}
	// A --success flag next to the waiter sees the wrapped document.
	flag, err := jmes.PathMatcher("output.truncated", jmes.Path)
	if err != nil {
		t.Fatal(err)
	}
	c = &acceptor.Chain{Acceptors: append([]acceptor.Acceptor{{State: acceptor.StateFailure, Matcher: flag, Name: "--failure output.truncated"}}, w.Acceptors...),
		Fallback: acceptor.WaitFallback, Input: in}
	c.Decode = jmes.DecoderFor(c)
	runWaiterCases(t, c, []waiterCase{
		{"flag first", stdoutAttempt(`{"groups":[{"id":1},{"id":2}],"truncated":true}`), acceptor.Fail, 1, ""},
		{"then the waiter", stdoutAttempt(`{"groups":[{"id":1},{"id":2}]}`), acceptor.Succeed, 2, ""},
	})
}

func TestWaiterValidation(t *testing.T) {
	t.Parallel()
	boto := func(waiter string) string { return `{"version": 2, "waiters": {"W": ` + waiter + `}}` }
	acc := func(a string) string {
		return boto(`{"delay": 5, "maxAttempts": 3, "operation": "Op", "acceptors": [` + a + `]}`)
	}
	ok := `{"state": "success", "matcher": "path", "argument": "a", "expected": true}`
	smithy := func(waiter string) string {
		return `{"smithy": "2.0", "shapes": {"ns#Op": {"type": "operation", "traits": {"smithy.waiters#waitable": {"W": ` + waiter + `}}}}}`
	}
	sacc := func(a string) string { return smithy(`{"acceptors": [` + a + `]}`) }
	sok := `{"state": "success", "matcher": {"success": true}}`
	out := func(path, expected, comparator string) string {
		return `{"state": "success", "matcher": {"output": {"path": "` + path + `", "expected": ` + expected + `, "comparator": "` + comparator + `"}}}`
	}
	tests := []struct{ model, want string }{
		{`[]`, "not a waiter model"},
		{`{"foo": 1}`, "not a waiter model"},
		{`{"version": 1, "waiters": {}}`, "unsupported botocore waiter version 1: want 2"},
		{`{"version": "2", "waiters": {}}`, `unsupported botocore waiter version "2"`},
		{`{"waiters": {}}`, "unsupported botocore waiter version none"},
		{boto(`{"maxAttempts": 3, "acceptors": [` + ok + `]}`), `waiter W: no "delay"`},
		{boto(`{"delay": -1, "maxAttempts": 3, "acceptors": [` + ok + `]}`), "waiter W: delay -1"},
		{boto(`{"delay": 1, "acceptors": [` + ok + `]}`), `waiter W: no "maxAttempts"`},
		{boto(`{"delay": 1, "maxAttempts": 0.5, "acceptors": [` + ok + `]}`), "waiter W: maxAttempts 0.5"},
		{boto(`{"delay": 1, "maxAttempts": 2, "acceptors": []}`), "waiter W: no acceptors"},
		{acc(`{"state": "success", "matcher": "regex", "argument": "a", "expected": 1}`), `waiter W: acceptor 1: unknown matcher "regex"`},
		{acc(`{"state": "done", "matcher": "path", "argument": "a", "expected": 1}`), `waiter W: acceptor 1: unknown state "done"`},
		{acc(`{"state": "throttle", "matcher": "path", "argument": "a", "expected": 1}`), `unknown state "throttle"`},
		{acc(`{"state": "success", "matcher": "path", "argument": "a.", "expected": 1}`), `waiter W: acceptor 1: invalid JMESPath expression "a."`},
		{acc(`{"state": "success", "matcher": "pathAll", "expected": 1}`), "waiter W: acceptor 1: pathAll matcher without an argument"},
		{acc(`{"state": "success", "matcher": "path", "argument": "a"}`), `waiter W: acceptor 1: no "expected" value`},
		{acc(`{"state": "success", "matcher": "status", "expected": "404"}`), "waiter W: acceptor 1: status matcher expecting \"404\": want an HTTP status, a number"},
		{acc(`{"state": "success", "matcher": "error", "expected": 1}`), "waiter W: acceptor 1: error matcher expecting 1"},
		{acc(`{"state": "success", "matcher": "error", "expected": " "}`), "error matcher expecting an empty error code"},
		{acc(`{"state": "success", "matcher": "path", "argument": "lenght(a)", "expected": 1}`), "unknown function lenght()"},
		{smithy(`{"acceptors": []}`), "waiter W: no acceptors"},
		{smithy(`{"acceptors": [` + sok + `], "minDelay": 30, "maxDelay": 20}`), "waiter W: minDelay 30s is greater than maxDelay 20s"},
		{smithy(`{"acceptors": [` + sok + `], "minDelay": 200}`), "waiter W: minDelay 3m20s is greater than maxDelay 2m0s"},
		{smithy(`{"acceptors": [` + sok + `], "minDelay": 0}`), "waiter W: minDelay 0: want a whole number of seconds ≥ 1"},
		{smithy(`{"acceptors": [` + sok + `], "maxDelay": 1.5}`), "waiter W: maxDelay 1.5"},
		{sacc(`{"state": "failure", "matcher": {"success": false}}`), "waiter W: no acceptor leads to the success state"},
		{sacc(`{"state": "pending", "matcher": {"success": true}}`), `waiter W: acceptor 1: unknown state "pending"`},
		{sacc(`{"state": "success", "matcher": {"status": 200}}`), `waiter W: acceptor 1: unknown matcher "status"`},
		{sacc(`{"state": "success", "matcher": {}}`), "the matcher must set exactly one of output, inputOutput, success and errorType (it sets 0)"},
		{sacc(`{"state": "success", "matcher": {"success": true, "errorType": "X"}}`), "(it sets 2)"},
		{sacc(`{"state": "success", "matcher": {"success": "yes"}}`), "success matcher: want true or false"},
		{sacc(`{"state": "success", "matcher": {"errorType": ""}}`), "errorType matcher: want an error shape name"},
		{sacc(`{"state": "success", "matcher": {"errorType": "ns#"}}`), `errorType matcher: "ns#" has no shape name`},
		{sacc(out("a", `"yes"`, "booleanEquals")), `waiter W: acceptor 1: output matcher: booleanEquals expects "true" or "false", not "yes"`},
		{sacc(out("a", `true`, "booleanEquals")), "output matcher: expected must be a string, not true"},
		{sacc(out("a", `"x"`, "numberEquals")), `output matcher: unknown comparator "numberEquals"`},
		{sacc(out("a[", `"x"`, "stringEquals")), `waiter W: acceptor 1: output matcher: invalid JMESPath expression "a["`},
		{sacc(`{"state": "success", "matcher": {"inputOutput": {"expected": "x", "comparator": "stringEquals"}}}`), "inputOutput matcher without a path"},
		{`{"smithy": "2.0", "shapes": {"ns#A": {"type": "operation", "traits": {"smithy.waiters#waitable": {"Ready": {"acceptors": [` + sok + `]}}}},` +
			`"ns#B": {"type": "operation", "traits": {"smithy.waiters#waitable": {"READY": {"acceptors": [` + sok + `]}}}}}}`, "waiter READY: defined twice (as Ready too)"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.model))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant …%s…", tt.model, err, tt.want)
		}
	}
	// The valid forms of the same shapes load.
	for _, m := range []string{acc(ok), sacc(sok), sacc(out("a", `"false"`, "booleanEquals")), sacc(out("a[]", `"x"`, "allStringEquals"))} {
		if _, err := Parse([]byte(m)); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
}

func TestParseErrorsAndLookup(t *testing.T) {
	t.Parallel()
	bad := `{"version": 2, "waiters": {"W": {"delay": 1, "maxAttempts": 1, "acceptors": [{"state": "success", "matcher": "path", "argument": "a\u0080", "expected": 1}]}}}`
	if _, err := Parse([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "waiter W: acceptor 1: invalid JMESPath expression") {
		t.Errorf("got %v", err)
	}
	f, err := load("testdata/waiter-models/s3-waiters-2.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Model("BucketGone"); err == nil ||
		err.Error() != `no waiter "BucketGone"; the waiters are: BucketExists, BucketNotExists, ObjectExists, ObjectNotExists` {
		t.Errorf("got %v", err)
	}
	if _, err := f.Model("bucketexists"); err == nil || err.Error() != `no waiter "bucketexists" (did you mean BucketExists?)` {
		t.Errorf("got %v", err)
	}
	w, _ := f.Model("BucketExists")
	w.Acceptors[0] = acceptor.Acceptor{}
	if w2, _ := f.Model("BucketExists"); w2.Acceptors[0].Matcher == nil {
		t.Error("Model returns the file's own acceptors")
	}
}

// TestSmithyErrorTypeHTTPError: an errorType naming an error shape with
// smithy.api#httpError also matches that status, as the AWS CLI reports S3's
// HeadBucket NotFound: "An error occurred (404)".
func TestSmithyErrorTypeHTTPError(t *testing.T) {
	t.Parallel()
	w := loadWaiter(t, "smithy-s3-head-bucket.json", "BucketNotExists")
	if got := w.Acceptors[0].Name; got != `waiter BucketNotExists acceptor 1 (errorType "NotFound" or status 404)` {
		t.Errorf("name %q", got)
	}
	runWaiterCases(t, waitChain(w, nil), []waiterCase{
		{"AWS CLI 404", errorAttempt("404"), acceptor.Succeed, 1, ""},
		{"the error code", errorAttempt("NotFound"), acceptor.Succeed, 1, ""},
		{"HTTP 404", &acceptor.Attempt{Number: 1, Failed: true, Kind: acceptor.HTTPAttempt, Status: 404}, acceptor.Succeed, 1, ""},
		{"403", errorAttempt("403"), acceptor.Fail, 0, ""},
		{"exists", stdoutAttempt(`{}`), acceptor.RetryServer, 0, ""},
	})
	exists := loadWaiter(t, "smithy-s3-head-bucket.json", "BucketExists")
	runWaiterCases(t, waitChain(exists, nil), []waiterCase{
		{"AWS CLI 404", errorAttempt("404"), acceptor.RetryServer, 2, ""},
		{"exists", stdoutAttempt(`{}`), acceptor.Succeed, 1, ""},
	})
	// Without the trait (smithy-model.json's NotFound), only the name matches.
	thing := loadWaiter(t, "smithy-model.json", "ThingExists")
	runWaiterCases(t, waitChain(thing, nil), []waiterCase{
		{"404 is not NotFound", errorAttempt("404"), acceptor.Fail, 0, ""},
	})
}
