package jmes

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/retry-dev/retry/acceptor"
)

// The JMESPath compliance suite (github.com/jmespath/jmespath.test, the
// files jmespath.py ships as tests/compliance, MIT licence in
// testdata/jmespath-compliance/LICENSE), run through the --query evaluator
// and through a path acceptor (EXPR=VALUE with the expected result): every
// case with a result gives that result, every case with an error is an
// error, and the acceptor matches exactly the cases with a result.

type complianceSuite struct {
	Given json.RawMessage  `json:"given"`
	Cases []complianceCase `json:"cases"`
}

type complianceCase struct {
	Expression string          `json:"expression"`
	Result     json.RawMessage `json:"result"`
	Error      string          `json:"error"`
	Bench      string          `json:"bench"`
}

func stdoutOf(doc []byte) *acceptor.Attempt {
	return &acceptor.Attempt{Number: 1, Stdout: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(doc)), nil }}
}

// complianceFile is one file of the compliance suite: its name (without
// .json) and its suites.
type complianceFile struct {
	name   string
	suites []complianceSuite
}

// complianceFiles reads the compliance suite.
func complianceFiles(t *testing.T) []complianceFile {
	t.Helper()
	files, err := filepath.Glob("testdata/jmespath-compliance/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no compliance files: %v", err)
	}
	var out []complianceFile
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var suites []complianceSuite
		if err := json.Unmarshal(data, &suites); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, complianceFile{strings.TrimSuffix(filepath.Base(file), ".json"), suites})
	}
	return out
}

func TestJMESPathCompliance(t *testing.T) {
	t.Parallel()
	var cases, queryRuns, acceptorRuns, benches int
	for _, f := range complianceFiles(t) {
		name, suites := f.name, f.suites
		for si, s := range suites {
			for ci, c := range s.Cases {
				cases++
				where := func() string {
					return name + "#" + strconv.Itoa(si) + "." + strconv.Itoa(ci) + " " + strconv.Quote(c.Expression)
				}
				q, qerr := NewQuery(c.Expression)
				var out []byte
				if qerr == nil {
					out, qerr = q.ApplyAttempt(stdoutOf(s.Given))
				}
				queryRuns++
				switch {
				case c.Bench != "":
					benches++
					if qerr != nil {
						t.Errorf("%s: benchmark case fails: %v", where(), qerr)
					}
					continue
				case c.Error != "":
					if qerr == nil {
						t.Errorf("%s: got %s, want a %s error", where(), bytes.TrimSpace(out), c.Error)
					}
				case qerr != nil:
					t.Errorf("%s: %v, want %s", where(), qerr, c.Result)
				default:
					got, err := acceptor.DecodeJSON(bytes.NewReader(out))
					if err != nil {
						t.Errorf("%s: output %q is not JSON: %v", where(), out, err)
						break
					}
					want, _ := acceptor.DecodeJSON(bytes.NewReader(c.Result))
					if !jsonEqual(got, want) {
						t.Errorf("%s: got %s, want %s", where(), bytes.TrimSpace(out), c.Result)
					}
				}
				// The acceptor form: EXPR with the expected result matches
				// exactly when the case has a result.
				var expected any = "no result expected"
				if c.Error == "" {
					expected, _ = acceptor.DecodeJSON(bytes.NewReader(c.Result))
				}
				m, merr := NewPathMatcher(c.Expression, Path, expected)
				if merr != nil {
					if c.Error == "" {
						t.Errorf("%s: acceptor: %v", where(), merr)
					}
					continue
				}
				matches := func(m acceptor.Matcher) (bool, acceptor.Decision) {
					chain := &acceptor.Chain{Acceptors: []acceptor.Acceptor{{State: acceptor.StateSuccess, Matcher: m, Name: "path"}}}
					chain.Decode = DecoderFor(chain)
					d := chain.Evaluate(stdoutOf(s.Given))
					acceptorRuns++
					return d.Source == acceptor.FromAcceptor, d
				}
				if matched, d := matches(m); matched != (c.Error == "") {
					t.Errorf("%s: acceptor matched %t (saw %s; %v)", where(), matched, d.Trace[0].Value, d.Warnings)
				}
				// -any and -all with the first element of an array result:
				// -any matches, -all when every element equals it; neither
				// on any other result.
				arr, _ := expected.([]any)
				var first any = "no element"
				if len(arr) > 0 {
					first = arr[0]
				}
				all := len(arr) > 0
				for _, e := range arr {
					all = all && jsonEqual(e, first)
				}
				for mode, want := range map[PathMode]bool{PathAny: len(arr) > 0, PathAll: all} {
					m, err := NewPathMatcher(c.Expression, mode, first)
					if err != nil {
						t.Errorf("%s: %s: %v", where(), mode, err)
						continue
					}
					if matched, d := matches(m); matched != want {
						t.Errorf("%s: %s %s matched %t (saw %s; %v)", where(), mode, shownJSON(first, 100), matched, d.Trace[0].Value, d.Warnings)
					}
				}
				// --output text: an error exactly when the JSON form is one.
				if q != nil {
					_, terr := q.ApplyAttemptText(stdoutOf(s.Given))
					queryRuns++
					if (terr != nil) != (c.Error != "") {
						t.Errorf("%s: --output text: %v", where(), terr)
					}
				}
			}
		}
	}
	t.Logf("JMESPath compliance: %d cases (%d benchmarks), %d --query runs (json and text), %d acceptor runs (path, -any, -all)", cases, benches, queryRuns, acceptorRuns)
}
