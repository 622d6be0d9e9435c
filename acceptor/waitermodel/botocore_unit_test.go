package waitermodel

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

// botocoreResponse turns a response as botocore's waiter unit tests write
// one (a dict: the output's members, "Error": {"Code": …} for an error,
// "ResponseMetadata": {"HTTPStatusCode": …}) into the attempt retry sees:
// an HTTP call answered with that body, status and error code. The tests'
// mocked responses often carry no status, which no status acceptor matches
// (Status 0 here: no status matcher matches it either); an error without
// one is a 400.
func botocoreResponse(t *testing.T, n int, resp string) *acceptor.Attempt {
	t.Helper()
	var r struct {
		Error            json.RawMessage
		ResponseMetadata struct{ HTTPStatusCode int }
	}
	if err := json.Unmarshal([]byte(resp), &r); err != nil {
		t.Fatalf("%s: %v", resp, err)
	}
	var e struct{ Code string }
	isError := r.Error != nil && json.Unmarshal(r.Error, &e) == nil && e.Code != ""
	a := &acceptor.Attempt{Number: n, Kind: acceptor.HTTPAttempt, Status: r.ResponseMetadata.HTTPStatusCode,
		Stdout: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(resp)), nil }}
	if isError {
		a.ErrorCode = e.Code
		if a.Status == 0 {
			a.Status = 400
		}
	}
	a.Failed = a.Status >= 300
	return a
}

// TestBotocoreWaiterUnitTests: botocore's own waiter unit tests
// (tests/unit/test_waiters.py, TestWaitersObjects and the matcher tests of
// TestWaiterModel), each waiter config loaded as a waiters-2.json and run
// over the test's responses as botocore's Waiter.wait runs them: the first
// matching acceptor decides; an error no acceptor matches is the failure
// state; otherwise the waiter polls until maxAttempts. Expected: the
// outcome and the number of calls the test asserts.
func TestBotocoreWaiterUnitTests(t *testing.T) {
	t.Parallel()
	const never = `{"state": "success", "matcher": "status", "expected": 1000}` // botocore's default: a success never reached
	path := func(state, matcher, arg, expected string) string {
		return `{"state": "` + state + `", "matcher": "` + matcher + `", "argument": "` + arg + `", "expected": ` + expected + `}`
	}
	errAcc := func(state, expected string) string {
		return `{"state": "` + state + `", "matcher": "error", "expected": ` + expected + `}`
	}
	status := func(state string, code string) string {
		return `{"state": "` + state + `", "matcher": "status", "expected": ` + code + `}`
	}
	const failure, tooMany = "failure", "max attempts"
	for _, tt := range []struct {
		name        string
		acceptors   []string
		maxAttempts int
		responses   []string
		want        string // success, failure, max attempts
		calls       int
	}{
		// TestWaitersObjects
		{"waits_until_acceptor_matches", []string{path("success", "path", "Foo", `"SUCCESS"`)}, 3,
			[]string{`{"Foo": "FAILURE"}`, `{"Foo": "FAILURE"}`, `{"Foo": "SUCCESS"}`}, "success", 3},
		{"matches_with_invalid_error_response", []string{path("success", "path", "Foo", `"SUCCESS"`)}, 3,
			[]string{`{"Foo": "SUCCESS", "Error": "foo"}`}, "success", 1},
		{"never_matches", []string{never}, 3,
			[]string{`{"Foo": "FAILURE"}`, `{"Foo": "FAILURE"}`, `{"Foo": "FAILURE"}`}, tooMany, 3},
		{"unspecified_errors_stops_waiter", []string{never}, 3,
			[]string{`{"Error": {"Code": "UnknownError", "Message": "bad error"}}`}, failure, 1},
		{"unspecified_errors_propagate_error_code", []string{never}, 3,
			[]string{`{"Error": {"Code": "error_message", "Message": "error_message"}}`}, failure, 1},
		{"failure_state_error path", []string{path("failure", "path", "Foo", `"FAILURE"`)}, 3,
			[]string{`{"Foo": "FAILURE"}`}, failure, 1},
		{"failure_state_error pathAll", []string{path("failure", "pathAll", "Tables[].State", `"FAILURE"`)}, 3,
			[]string{`{"Tables": [{"State": "FAILURE"}]}`}, failure, 1},
		{"failure_state_error pathAny", []string{path("failure", "pathAny", "Tables[].State", `"FAILURE"`)}, 3,
			[]string{`{"Tables": [{"State": "FAILURE"}]}`}, failure, 1},
		{"failure_state_error status", []string{status("failure", "404")}, 3,
			[]string{`{"ResponseMetadata": {"HTTPStatusCode": 404}}`}, failure, 1},
		{"failure_state_error error", []string{errAcc("failure", `"FailError"`)}, 3,
			[]string{`{"Error": {"Code": "FailError", "Message": "foo"}}`}, failure, 1},
		{"failure_state_error retry only", []string{errAcc("retry", `"RetryMe"`)}, 3,
			[]string{`{"Success": false}`, `{"Success": false}`, `{"Success": false}`, `{"Success": false}`}, tooMany, 3},
		{"failure_state_error previously accepted", []string{status("success", "200"), errAcc("retry", `"RetryMe"`)}, 3,
			[]string{`{"Success": false}`, `{"Error": {"Code": "RetryMe", "Message": "foo"}}`, `{"Success": false}`, `{"Success": false}`}, tooMany, 3},
		{"transitions_to_failure_state", []string{never, errAcc("failure", `"FailError"`)}, 3,
			[]string{`{"Nothing": "foo"}`, `{"Error": {"Code": "FailError", "Message": "foo"}}`, `{"WillNeverGetCalled": true}`}, failure, 2},
		{"handles_retry_state", []string{status("success", "200"), errAcc("retry", `"RetryMe"`)}, 3,
			[]string{`{"Nothing": "foo"}`, `{"Error": {"Code": "RetryMe", "Message": "foo"}}`, `{"Success": true, "ResponseMetadata": {"HTTPStatusCode": 200}}`, `{"NeverCalled": true}`}, "success", 3},
		{"kwargs_are_passed_through", []string{errAcc("success", `"MyError"`)}, 3,
			[]string{`{"Error": {"Code": "MyError"}}`}, "success", 1},
		{"honors_delay_time_between_retries", []string{never}, 3,
			[]string{`{"Success": false}`, `{"Success": false}`, `{"Success": false}`}, tooMany, 3},
		{"invocation_config_honors_max_attempts", []string{never}, 2,
			[]string{`{"Success": false}`, `{"Success": false}`}, tooMany, 2},
		// TestWaiterModel: one response each.
		{"matches_jmespath", []string{path("success", "path", "Table.TableStatus", `"ACCEPTED"`)}, 1, []string{`{"Table": {"TableStatus": "ACCEPTED"}}`}, "success", 1},
		{"matches_jmespath not", []string{path("success", "path", "Table.TableStatus", `"ACCEPTED"`)}, 1, []string{`{"Table": {"TableStatus": "CREATING"}}`}, tooMany, 1},
		{"supports_status_code", []string{status("success", "200")}, 1, []string{`{"ResponseMetadata": {"HTTPStatusCode": 200}}`}, "success", 1},
		{"supports_status_code 404", []string{status("success", "200")}, 1, []string{`{"ResponseMetadata": {"HTTPStatusCode": 404}}`}, failure, 1},
		{"supports_error", []string{errAcc("success", `"DoesNotExistError"`)}, 1, []string{`{"Error": {"Code": "DoesNotExistError"}}`}, "success", 1},
		{"supports_error other", []string{errAcc("success", `"DoesNotExistError"`)}, 1, []string{`{"Error": {"Code": "DoesNotExistErorr"}}`}, failure, 1},
		{"supports_no_error", []string{errAcc("success", "false")}, 1, []string{`{}`}, "success", 1},
		{"supports_no_error error", []string{errAcc("success", "false")}, 1, []string{`{"Error": {"Code": "ExampleError"}}`}, failure, 1},
		{"supports_any_error", []string{errAcc("success", "true")}, 1, []string{`{"Error": {"Code": "ExampleError1"}}`}, "success", 1},
		{"supports_path_all", []string{path("success", "pathAll", "Tables[].State", `"GOOD"`)}, 1, []string{`{"Tables": [{"State": "GOOD"}, {"State": "GOOD"}]}`}, "success", 1},
		{"supports_path_any", []string{path("failure", "pathAny", "Tables[].State", `"FAIL"`)}, 1, []string{`{"Tables": [{"State": "GOOD"}, {"State": "FAIL"}]}`}, failure, 1},
		{"error_responses_with_path_matchers", []string{path("success", "pathAny", "length(Tables) > `0`", "true"), path("success", "pathAll", "length(Tables) > `0`", "true"), path("success", "path", "length(Tables) > `0`", "true")}, 1,
			[]string{`{"Error": {"Code": "DoesNotExist"}}`}, failure, 1},
		{"does_not_match_path_all mixed", []string{path("success", "pathAll", "Tables[].State", `"GOOD"`)}, 1, []string{`{"Tables": [{"State": "GOOD"}, {"State": "BAD"}]}`}, tooMany, 1},
		{"does_not_match_path_all empty", []string{path("success", "pathAll", "Tables[].State", `"GOOD"`)}, 1, []string{`{"Tables": []}`}, tooMany, 1},
		{"path_all_missing_field", []string{path("success", "pathAll", "Tables[].State", `"GOOD"`)}, 1, []string{`{"Tables": [{"NotState": "GOOD"}, {"NotState": "BAD"}]}`}, tooMany, 1},
		{"path_all_matcher_does_not_receive_list", []string{path("success", "pathAll", "Tables[].State", `"GOOD"`)}, 1, []string{`{"NotTables": []}`}, tooMany, 1},
		{"all_three_states match nothing", []string{errAcc("success", `"DoesNotExistError"`), status("success", "200"), path("success", "path", "Foo.Bar", `"baz"`)}, 1, []string{`{}`}, tooMany, 1},
	} {
		model := `{"version": 2, "waiters": {"MyWaiter": {"operation": "MyOperation", "delay": 0, "maxAttempts": ` +
			itoa(tt.maxAttempts) + `, "acceptors": [` + strings.Join(tt.acceptors, ",") + `]}}}`
		f, err := Parse([]byte(model))
		if err != nil {
			t.Errorf("%s: botocore loads it, retry refuses it: %v", tt.name, err)
			continue
		}
		w, err := f.Model("MyWaiter")
		if err != nil {
			t.Fatal(err)
		}
		c := waitChain(w, nil)
		got, calls := tooMany, 0
	loop:
		for _, resp := range tt.responses {
			if calls == w.MaxAttempts {
				break
			}
			calls++
			switch d := c.Evaluate(botocoreResponse(t, calls, resp)); {
			case d.Directive == acceptor.Succeed:
				got = "success"
				break loop
			case d.Directive == acceptor.Fail:
				got = failure
				break loop
			}
		}
		if got != tt.want || calls != tt.calls {
			t.Errorf("%s: %s after %d calls, want %s after %d (botocore)", tt.name, got, calls, tt.want, tt.calls)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
