package plan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/jmes"
	"github.com/retry-dev/retry/runner/redact"
)

// acceptorKind is one family of acceptor flags: --STATE-KIND VALUE.
type acceptorKind struct {
	suffix string // "-exit", "" for JMESPath paths
	arg    string // placeholder in help
	help   string
	states []acceptor.State
	build  func(value string) (acceptor.Matcher, error)
	path   bool // a JMESPath acceptor (needs stdout as JSON)
}

var allStates = []acceptor.State{acceptor.StateSuccess, acceptor.StateFailure, acceptor.StateRetry, acceptor.StateThrottle}
var pathStates = []acceptor.State{acceptor.StateSuccess, acceptor.StateFailure, acceptor.StateRetry}

func acceptorKinds() []acceptorKind {
	return []acceptorKind{
		{suffix: "-exit", arg: "CODES", help: "when the exit status is in CODES (0, 1,3, 10-20)", states: allStates,
			build: func(v string) (acceptor.Matcher, error) {
				c, err := acceptor.ParseExitCodes(v)
				if err != nil {
					return nil, err
				}
				return acceptor.ExitMatcher(c), nil
			}},
		{suffix: "-output", arg: "RE", help: "when stdout or stderr matches the RE2 regexp RE", states: allStates,
			build: func(v string) (acceptor.Matcher, error) {
				re, err := regexp.Compile(v)
				if err != nil {
					return nil, fmt.Errorf("want an RE2 regular expression: %s", regexpProblem(err))
				}
				return acceptor.OutputMatcher(re), nil
			}},
		{suffix: "-error", arg: "CODE", help: "when a failed attempt's error code is CODE (true: any error, false: no error, timeout: stopped by --attempt-timeout)", states: allStates,
			build: func(v string) (acceptor.Matcher, error) {
				if strings.TrimSpace(v) == "" {
					return nil, fmt.Errorf("want an error code, true or false")
				}
				return acceptor.ErrorMatcher(v), nil
			}},
		{suffix: "-status", arg: "CODES", help: "when the HTTP status is in CODES (commands: 2xx = success, ≥ 400 = error code)", states: allStates,
			build: func(v string) (acceptor.Matcher, error) {
				c, err := acceptor.ParseStatusCodes(v)
				if err != nil {
					return nil, err
				}
				return acceptor.StatusMatcher(c), nil
			}},
		{suffix: "", arg: "EXPR[=VALUE]", help: "when the JMESPath EXPR over stdout as JSON equals VALUE (or is true)", states: pathStates, path: true,
			build: func(v string) (acceptor.Matcher, error) { return jmes.PathMatcher(v, jmes.Path) }},
		{suffix: "-all", arg: "EXPR=VALUE", help: "when every element of the non-empty array EXPR equals VALUE", states: pathStates, path: true,
			build: func(v string) (acceptor.Matcher, error) { return jmes.PathMatcher(v, jmes.PathAll) }},
		{suffix: "-any", arg: "EXPR=VALUE", help: "when some element of the array EXPR equals VALUE", states: pathStates, path: true,
			build: func(v string) (acceptor.Matcher, error) { return jmes.PathMatcher(v, jmes.PathAny) }},
	}
}

// acceptorSpec is one acceptor flag as given, in command-line order.
type acceptorSpec struct {
	flag  string // "success-exit"
	value string
	acc   acceptor.Acceptor
	expr  string // the JMESPath expression of a path acceptor
}

// acceptorList collects acceptor flags in the order they were given, across
// flags. Each value is compiled when it is set, so a bad one is a usage
// error naming its flag.
type acceptorList struct {
	specs []acceptorSpec
}

type acceptorValue struct {
	list  *acceptorList
	flag  string
	state acceptor.State
	kind  acceptorKind
}

func (v *acceptorValue) String() string { return "" }
func (v *acceptorValue) Type() string   { return v.kind.arg }
func (v *acceptorValue) Set(s string) error {
	if v.kind.path && isCount(s) {
		return bareNumber(v.state, s)
	}
	m, err := v.kind.build(s)
	if err != nil {
		return err
	}
	shown := s
	if v.kind.path {
		shown = hideLiterals(s)
	}
	spec := acceptorSpec{flag: v.flag, value: s, acc: acceptor.Acceptor{State: v.state, Matcher: m, Name: "--" + v.flag + " " + shown}}
	if v.kind.path {
		spec.expr = s
	}
	v.list.specs = append(v.list.specs, spec)
	return nil
}

// register adds every acceptor flag to fs.
func (l *acceptorList) register(fs *pflag.FlagSet) {
	for _, k := range acceptorKinds() {
		for _, st := range k.states {
			name := st.String() + k.suffix
			fs.Var(&acceptorValue{list: l, flag: name, state: st, kind: k}, name, st.String()+" "+k.help)
		}
	}
}

// acceptors returns the compiled acceptors in order.
func (l *acceptorList) acceptors() []acceptor.Acceptor {
	out := make([]acceptor.Acceptor, len(l.specs))
	for i, s := range l.specs {
		out[i] = s.acc
	}
	return out
}

// exprs returns the JMESPath expressions of the path acceptors, in order.
func (l *acceptorList) exprs() []string {
	var out []string
	for _, s := range l.specs {
		if s.expr != "" {
			out = append(out, s.expr)
		}
	}
	return out
}

// hideLiterals is a JMESPath acceptor's argument (EXPR[=VALUE]) as logs
// name it: when its expression names a secret (redact.NamesSecret), the
// literals it compares with (`"S"`, 'S') and the VALUE after it are
// hidden, since a match makes them the secret itself.
func hideLiterals(arg string) string {
	if !redact.NamesSecret(arg) {
		return arg
	}
	if expr, _, ok := jmes.SplitPathArg(arg); ok {
		return hideLiterals(expr) + "=" + redact.Placeholder
	}
	expr := arg
	var b strings.Builder
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		b.WriteByte(c)
		if c != '`' && c != '\'' {
			continue
		}
		end := strings.IndexByte(expr[i+1:], c)
		if end < 0 {
			b.WriteString(expr[i+1:])
			break
		}
		b.WriteString(redact.Placeholder)
		b.WriteByte(c)
		i += end + 1
	}
	return b.String()
}

// isCount reports whether s is a bare whole number ("3"), which no
// JMESPath expression is.
func isCount(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// bareNumber is the error of a JMESPath acceptor given a bare number:
// `--retry 3` meant three attempts, `--success 0` an exit status.
func bareNumber(st acceptor.State, s string) error {
	n := strings.TrimSpace(s)
	if st == acceptor.StateRetry {
		return fmt.Errorf("a number is not a JMESPath expression: for %s attempts use -n/--attempts %s (--retry-exit %s retries on exit status %s)", n, n, n, n)
	}
	return fmt.Errorf("a number is not a JMESPath expression: for exit status %s use --%s-exit %s (a JSON number is written `%s`)", n, st, n, n)
}

func regexpProblem(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}
