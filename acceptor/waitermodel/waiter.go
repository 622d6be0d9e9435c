package waitermodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/jmes"
)

// Model is the model of one named waiter of a model file: its acceptors,
// in order, ready for an acceptor.Chain, and its timing.
type Model struct {
	Name string

	// Acceptors are the waiter's acceptors in model order. Their names say
	// where they come from: `waiter InstanceRunning acceptor 1 (pathAll
	// "Reservations[].Instances[].State.Name" = "running")`.
	Acceptors []acceptor.Acceptor

	// Delay and MaxAttempts are a botocore waiter's constant delay between
	// attempts and its number of attempts; both are zero for Smithy.
	Delay       time.Duration
	MaxAttempts int

	// MinDelay and MaxDelay are a Smithy waiter's delay bounds (defaults 2s
	// and 120s); both are zero for botocore.
	MinDelay, MaxDelay time.Duration

	// Smithy reports that the waiter comes from a Smithy model.
	Smithy bool

	// Operation is the operation the waiter polls: "DescribeInstances"
	// (a Smithy shape ID is reduced to its name).
	Operation string

	// Documentation is the waiter's description (botocore) or
	// documentation (Smithy); "" when there is none.
	Documentation string

	// UsesInput reports that some acceptor is a Smithy inputOutput matcher,
	// which compares the output with the operation's input: give --input
	// (without it, input is {}).
	UsesInput bool
}

// File is a loaded model file: a botocore waiters-2.json or a Smithy
// JSON AST model.
type File struct {
	// Smithy reports that the file is a Smithy model.
	Smithy bool

	waiters map[string]*Model
}

// Parse reads a waiter model file and validates every waiter in it.
//
// A botocore waiters-2.json has a top-level "version" (which must be 2)
// and "waiters"; its matchers are path, pathAll, pathAny, status and error.
// A Smithy JSON AST model has a top-level "smithy" and "shapes"; waiters
// are the smithy.waiters#waitable traits of its operations, with output,
// inputOutput, success and errorType matchers and the comparators
// stringEquals, booleanEquals, allStringEquals and anyStringEquals.
//
// Errors name the waiter and the problem: an unknown version, matcher,
// comparator or state, a Smithy waiter without a success acceptor (the
// Smithy specification requires one; botocore runs such a waiter, which can
// still reach the failure state or run out of attempts), a bad delay,
// minDelay > maxDelay, a booleanEquals expecting something other than
// "true" or "false", an expression that does not compile. A model with no
// waiters is not an error (half of the waiter files botocore ships are
// {"version": 2, "waiters": {}}): Names is empty, and Model says so.
func Parse(data []byte) (*File, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a waiter model: %v", err)
	}
	f := &File{waiters: map[string]*Model{}}
	var err error
	switch {
	case top["smithy"] != nil && top["shapes"] != nil:
		f.Smithy = true
		err = f.parseSmithy(top)
	case top["waiters"] != nil:
		err = f.parseBotocore(top)
	default:
		return nil, errors.New(`not a waiter model: want a botocore waiters-2.json ("version": 2, "waiters") or a Smithy JSON model ("smithy", "shapes")`)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Names returns the names of the waiters, sorted.
func (f *File) Names() []string {
	names := slices.Sorted(maps.Keys(f.waiters))
	return names
}

// maxListed is how many names the error of an unknown waiter lists.
const maxListed = 20

// Model returns the model of the waiter called name (case matters). The
// error of an unknown name lists the names there are (the first 20, and the
// count). The Model is a copy: changing it does not change f.
func (f *File) Model(name string) (*Model, error) {
	w, ok := f.waiters[name]
	if !ok {
		names := f.Names()
		if len(names) == 0 {
			return nil, fmt.Errorf("no waiter %q: the model defines no waiters", name)
		}
		for _, n := range names {
			if strings.EqualFold(n, name) {
				return nil, fmt.Errorf("no waiter %q (did you mean %s?)", name, n)
			}
		}
		if len(names) > maxListed {
			return nil, fmt.Errorf("no waiter %q; the waiters are: %s, … (%d in all: --list-waiters lists them)", name, strings.Join(names[:maxListed], ", "), len(names))
		}
		return nil, fmt.Errorf("no waiter %q; the waiters are: %s", name, strings.Join(names, ", "))
	}
	c := *w
	c.Acceptors = append([]acceptor.Acceptor(nil), w.Acceptors...)
	return &c, nil
}

// add validates w (a success acceptor when needSuccess is set: Smithy
// requires one, botocore does not) and adds it.
func (f *File) add(w *Model, needSuccess bool) error {
	success := false
	for _, a := range w.Acceptors {
		success = success || a.State == acceptor.StateSuccess
	}
	if needSuccess && !success {
		return fmt.Errorf("waiter %s: no acceptor leads to the success state", w.Name)
	}
	for n := range f.waiters {
		if strings.EqualFold(n, w.Name) {
			return fmt.Errorf("waiter %s: defined twice (as %s too)", w.Name, n)
		}
	}
	f.waiters[w.Name] = w
	return nil
}

// waiterState parses the state of a model's acceptor: success, failure or
// retry (models know no throttle).
func waiterState(s string) (acceptor.State, error) {
	switch s {
	case "success":
		return acceptor.StateSuccess, nil
	case "failure":
		return acceptor.StateFailure, nil
	case "retry":
		return acceptor.StateRetry, nil
	}
	return 0, fmt.Errorf("unknown state %q (want success, failure or retry)", s)
}

// decodeJSONValue decodes raw into a JSON value, numbers as float64.
func decodeJSONValue(raw json.RawMessage) (any, error) {
	var v any
	err := json.Unmarshal(raw, &v)
	return v, err
}

// seconds converts a number of seconds of a model to a Duration, refusing
// negative, non-finite and absurd values.
func seconds(v float64) (time.Duration, bool) {
	if math.IsNaN(v) || v < 0 || v > 366*24*3600 {
		return 0, false
	}
	return time.Duration(v * float64(time.Second)), true
}

type botoWaiter struct {
	Delay       *float64       `json:"delay"`
	MaxAttempts *float64       `json:"maxAttempts"`
	Operation   string         `json:"operation"`
	Description string         `json:"description"`
	Acceptors   []botoAcceptor `json:"acceptors"`
}

type botoAcceptor struct {
	State    string          `json:"state"`
	Matcher  string          `json:"matcher"`
	Argument *string         `json:"argument"`
	Expected json.RawMessage `json:"expected"`
}

func (f *File) parseBotocore(top map[string]json.RawMessage) error {
	if v := top["version"]; v == nil || strings.TrimSpace(string(v)) != "2" {
		return fmt.Errorf("unsupported botocore waiter version %s: want 2", rawText(v))
	}
	var waiters map[string]json.RawMessage
	if err := json.Unmarshal(top["waiters"], &waiters); err != nil {
		return fmt.Errorf("waiters: want an object of waiters: %v", err)
	}
	names := slices.Sorted(maps.Keys(waiters))
	for _, name := range names {
		var bw botoWaiter
		if err := json.Unmarshal(waiters[name], &bw); err != nil {
			return fmt.Errorf("waiter %s: %v", name, err)
		}
		w, err := botoToModel(name, &bw)
		if err != nil {
			return fmt.Errorf("waiter %s: %v", name, err)
		}
		if err := f.add(w, false); err != nil {
			return err
		}
	}
	return nil
}

func botoToModel(name string, bw *botoWaiter) (*Model, error) {
	w := &Model{Name: name, Operation: bw.Operation, Documentation: bw.Description}
	if bw.Delay == nil {
		return nil, errors.New(`no "delay"`)
	}
	d, ok := seconds(*bw.Delay)
	if !ok {
		return nil, fmt.Errorf("delay %v: want seconds ≥ 0", *bw.Delay)
	}
	w.Delay = d
	if bw.MaxAttempts == nil {
		return nil, errors.New(`no "maxAttempts"`)
	}
	if n := *bw.MaxAttempts; n < 1 || n != math.Trunc(n) || n > math.MaxInt32 {
		return nil, fmt.Errorf("maxAttempts %v: want a whole number ≥ 1", n)
	}
	w.MaxAttempts = int(*bw.MaxAttempts)
	if len(bw.Acceptors) == 0 {
		return nil, errors.New("no acceptors")
	}
	for i, ba := range bw.Acceptors {
		acc, err := botoAcceptorOf(ba)
		if err != nil {
			return nil, fmt.Errorf("acceptor %d: %v", i+1, err)
		}
		acc.Name = fmt.Sprintf("waiter %s acceptor %d (%s)", name, i+1, acc.Name)
		w.Acceptors = append(w.Acceptors, acc)
	}
	return w, nil
}

// botoAcceptorOf builds one botocore acceptor; its Name is the matcher's
// description.
func botoAcceptorOf(ba botoAcceptor) (acceptor.Acceptor, error) {
	st, err := waiterState(ba.State)
	if err != nil {
		return acceptor.Acceptor{}, err
	}
	if ba.Expected == nil {
		return acceptor.Acceptor{}, errors.New(`no "expected" value`)
	}
	expected, err := decodeJSONValue(ba.Expected)
	if err != nil {
		return acceptor.Acceptor{}, err
	}
	switch ba.Matcher {
	case "path", "pathAll", "pathAny":
		mode := map[string]jmes.PathMode{"path": jmes.Path, "pathAll": jmes.PathAll, "pathAny": jmes.PathAny}[ba.Matcher]
		if ba.Argument == nil {
			return acceptor.Acceptor{}, fmt.Errorf("%s matcher without an argument", ba.Matcher)
		}
		m, err := jmes.NewPathMatcher(*ba.Argument, mode, expected)
		if err != nil {
			return acceptor.Acceptor{}, err
		}
		return acceptor.Acceptor{State: st, Matcher: m, Name: m.String()}, nil
	case "status":
		n, ok := expected.(float64)
		if !ok {
			return acceptor.Acceptor{}, fmt.Errorf("status matcher expecting %s: want an HTTP status, a number", ba.Expected)
		}
		if n != math.Trunc(n) || n < 100 || n > 599 {
			// botocore loads it and compares the status with it, which never
			// matches (its unit tests use 1000 for a success never reached).
			never := acceptor.MatcherFunc(func(*acceptor.Env) acceptor.MatchResult { return acceptor.MatchResult{} })
			return acceptor.Acceptor{State: st, Matcher: never, Name: fmt.Sprintf("status %s (never an HTTP status)", strings.TrimSpace(string(ba.Expected)))}, nil
		}
		return acceptor.Acceptor{State: st, Matcher: acceptor.StatusMatcher(acceptor.Codes{{Lo: int(n), Hi: int(n)}}), Name: fmt.Sprintf("status %d", int(n))}, nil
	case "error":
		switch e := expected.(type) {
		case bool:
			return acceptor.Acceptor{State: st, Matcher: acceptor.ErrorMatcher(strconv.FormatBool(e)), Name: fmt.Sprintf("error %t", e)}, nil
		case string:
			if strings.TrimSpace(e) == "" {
				return acceptor.Acceptor{}, errors.New("error matcher expecting an empty error code")
			}
			return acceptor.Acceptor{State: st, Matcher: acceptor.ErrorMatcher(e), Name: fmt.Sprintf("error %q", e)}, nil
		}
		return acceptor.Acceptor{}, fmt.Errorf("error matcher expecting %s: want an error code, true or false", ba.Expected)
	}
	return acceptor.Acceptor{}, fmt.Errorf("unknown matcher %q (want path, pathAll, pathAny, status or error)", ba.Matcher)
}

type smithyShape struct {
	Type   string                     `json:"type"`
	Traits map[string]json.RawMessage `json:"traits"`
}

type smithyWaiter struct {
	Documentation string           `json:"documentation"`
	Acceptors     []smithyAcceptor `json:"acceptors"`
	MinDelay      *float64         `json:"minDelay"`
	MaxDelay      *float64         `json:"maxDelay"`
}

type smithyAcceptor struct {
	State   string                     `json:"state"`
	Matcher map[string]json.RawMessage `json:"matcher"`
}

type smithyPath struct {
	Path       *string         `json:"path"`
	Expected   json.RawMessage `json:"expected"`
	Comparator string          `json:"comparator"`
}

// The Smithy default delays.
const (
	smithyMinDelay = 2 * time.Second
	smithyMaxDelay = 120 * time.Second
)

func (f *File) parseSmithy(top map[string]json.RawMessage) error {
	var shapes map[string]smithyShape
	if err := json.Unmarshal(top["shapes"], &shapes); err != nil {
		return fmt.Errorf("shapes: %v", err)
	}
	ids := slices.Sorted(maps.Keys(shapes))
	for _, id := range ids {
		raw := shapes[id].Traits["smithy.waiters#waitable"]
		if raw == nil {
			continue
		}
		var waiters map[string]json.RawMessage
		if err := json.Unmarshal(raw, &waiters); err != nil {
			return fmt.Errorf("%s: smithy.waiters#waitable: %v", id, err)
		}
		names := slices.Sorted(maps.Keys(waiters))
		op := id
		if i := strings.LastIndexByte(op, '#'); i >= 0 {
			op = op[i+1:]
		}
		for _, name := range names {
			dec := json.NewDecoder(bytes.NewReader(waiters[name]))
			var sw smithyWaiter
			if err := dec.Decode(&sw); err != nil {
				return fmt.Errorf("waiter %s: %v", name, err)
			}
			w, err := smithyToModel(name, op, &sw, shapes)
			if err != nil {
				return fmt.Errorf("waiter %s: %v", name, err)
			}
			if err := f.add(w, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func smithyToModel(name, op string, sw *smithyWaiter, shapes map[string]smithyShape) (*Model, error) {
	w := &Model{Name: name, Smithy: true, Operation: op, Documentation: sw.Documentation,
		MinDelay: smithyMinDelay, MaxDelay: smithyMaxDelay}
	for _, d := range []struct {
		field string
		v     *float64
		to    *time.Duration
	}{{"minDelay", sw.MinDelay, &w.MinDelay}, {"maxDelay", sw.MaxDelay, &w.MaxDelay}} {
		if d.v == nil {
			continue
		}
		v, ok := seconds(*d.v)
		if !ok || *d.v < 1 || *d.v != math.Trunc(*d.v) {
			return nil, fmt.Errorf("%s %v: want a whole number of seconds ≥ 1", d.field, *d.v)
		}
		*d.to = v
	}
	if w.MinDelay > w.MaxDelay {
		return nil, fmt.Errorf("minDelay %s is greater than maxDelay %s", w.MinDelay, w.MaxDelay)
	}
	if len(sw.Acceptors) == 0 {
		return nil, errors.New("no acceptors")
	}
	for i, sa := range sw.Acceptors {
		acc, usesInput, err := smithyAcceptorOf(sa, shapes)
		if err != nil {
			return nil, fmt.Errorf("acceptor %d: %v", i+1, err)
		}
		w.UsesInput = w.UsesInput || usesInput
		acc.Name = fmt.Sprintf("waiter %s acceptor %d (%s)", name, i+1, acc.Name)
		w.Acceptors = append(w.Acceptors, acc)
	}
	return w, nil
}

// smithyAcceptorOf builds one Smithy acceptor; its Name is the matcher's
// description.
func smithyAcceptorOf(sa smithyAcceptor, shapes map[string]smithyShape) (acc acceptor.Acceptor, usesInput bool, err error) {
	st, err := waiterState(sa.State)
	if err != nil {
		return acceptor.Acceptor{}, false, err
	}
	if len(sa.Matcher) != 1 {
		return acceptor.Acceptor{}, false, fmt.Errorf("the matcher must set exactly one of output, inputOutput, success and errorType (it sets %d)", len(sa.Matcher))
	}
	var kind string
	var raw json.RawMessage
	for k, r := range sa.Matcher { // the only member
		kind, raw = k, r
	}
	switch kind {
	case "output", "inputOutput":
		m, desc, err := smithyPathMatcher(kind, raw)
		if err != nil {
			return acceptor.Acceptor{}, false, err
		}
		return acceptor.Acceptor{State: st, Matcher: m, Name: kind + " " + desc}, kind == "inputOutput", nil
	case "success":
		var ok bool
		if err := json.Unmarshal(raw, &ok); err != nil {
			return acceptor.Acceptor{}, false, fmt.Errorf("success matcher: want true or false, not %s", raw)
		}
		// success: true matches an attempt without error, false any error.
		return acceptor.Acceptor{State: st, Matcher: acceptor.ErrorMatcher(strconv.FormatBool(!ok)), Name: fmt.Sprintf("success %t", ok)}, false, nil
	case "errorType":
		var et string
		if err := json.Unmarshal(raw, &et); err != nil || strings.TrimSpace(et) == "" {
			return acceptor.Acceptor{}, false, fmt.Errorf("errorType matcher: want an error shape name, not %s", raw)
		}
		code := et
		if i := strings.LastIndexByte(code, '#'); i >= 0 {
			code = code[i+1:] // an absolute shape ID matches on its name
		}
		if strings.TrimSpace(code) == "" {
			return acceptor.Acceptor{}, false, fmt.Errorf("errorType matcher: %q has no shape name", et)
		}
		name := fmt.Sprintf("errorType %q", et)
		m := acceptor.ErrorMatcher(code)
		if status := smithyHTTPError(shapes, et); status > 0 {
			// The AWS CLI reports a modelled error without a body (S3's
			// HeadBucket NotFound) by its status: An error occurred (404).
			m = anyMatcher(m, acceptor.StatusMatcher(acceptor.Codes{{Lo: status, Hi: status}}))
			name = fmt.Sprintf("errorType %q or status %d", et, status)
		}
		return acceptor.Acceptor{State: st, Matcher: m, Name: name}, false, nil
	}
	return acceptor.Acceptor{}, false, fmt.Errorf("unknown matcher %q (want output, inputOutput, success or errorType)", kind)
}

// smithyPathMatcher builds the matcher of an output or inputOutput
// PathMatcher structure, and describes it for the acceptor's name.
func smithyPathMatcher(kind string, raw json.RawMessage) (*jmes.PathMatch, string, error) {
	var sp smithyPath
	if err := json.Unmarshal(raw, &sp); err != nil {
		return nil, "", fmt.Errorf("%s matcher: %v", kind, err)
	}
	if sp.Path == nil {
		return nil, "", fmt.Errorf("%s matcher without a path", kind)
	}
	var expected string
	if err := json.Unmarshal(sp.Expected, &expected); err != nil || sp.Expected == nil {
		return nil, "", fmt.Errorf("%s matcher: expected must be a string, not %s", kind, rawText(sp.Expected))
	}
	var mode jmes.PathMode
	var want any = expected
	switch sp.Comparator {
	case "stringEquals":
		mode = jmes.Path
	case "booleanEquals":
		mode = jmes.Path
		switch expected {
		case "true":
			want = true
		case "false":
			want = false
		default:
			return nil, "", fmt.Errorf("%s matcher: booleanEquals expects \"true\" or \"false\", not %q", kind, expected)
		}
	case "allStringEquals":
		mode = jmes.PathAll
	case "anyStringEquals":
		mode = jmes.PathAny
	default:
		return nil, "", fmt.Errorf("%s matcher: unknown comparator %q (want stringEquals, booleanEquals, allStringEquals or anyStringEquals)", kind, sp.Comparator)
	}
	m, err := jmes.NewPathMatcher(*sp.Path, mode, want)
	if err != nil {
		return nil, "", fmt.Errorf("%s matcher: %v", kind, err)
	}
	m.SetScope(jmes.ScopeOutput)
	if kind == "inputOutput" {
		m.SetScope(jmes.ScopeInputOutput)
	}
	return m, m.Describe(sp.Comparator), nil
}

// rawText shows a model's raw JSON value in an error: as written, or
// "none" when it is absent.
func rawText(raw json.RawMessage) string {
	if raw == nil {
		return "none"
	}
	return string(raw)
}

// smithyHTTPError returns the status of the smithy.api#httpError trait of
// the error shape errorType names: an absolute shape ID, or a shape name,
// which matches the one shape of that name (0 when several do); 0 when the
// shape or the trait is absent.
func smithyHTTPError(shapes map[string]smithyShape, errorType string) int {
	shape, ok := shapes[errorType]
	if !ok && !strings.Contains(errorType, "#") {
		found := 0
		for id, sh := range shapes {
			if strings.HasSuffix(id, "#"+errorType) {
				shape, found = sh, found+1
			}
		}
		ok = found == 1
	}
	if !ok {
		return 0
	}
	var status int
	if raw := shape.Traits["smithy.api#httpError"]; raw == nil || json.Unmarshal(raw, &status) != nil || status < 100 || status > 599 {
		return 0
	}
	return status
}

// anyMatcher matches when one of ms matches, with the first match's value;
// else it reports the first matcher's result.
func anyMatcher(ms ...acceptor.Matcher) acceptor.Matcher {
	return acceptor.MatcherFunc(func(env *acceptor.Env) acceptor.MatchResult {
		var first acceptor.MatchResult
		for i, m := range ms {
			r := m.Match(env)
			if r.Matched {
				return r
			}
			if i == 0 {
				first = r
			}
		}
		return first
	})
}
