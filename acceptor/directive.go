// Package acceptor classifies the result of one attempt into a directive.
//
// An attempt (a command run or an HTTP call) produces an Attempt. Acceptors,
// each a State and a Matcher, are evaluated in order by a Chain; the first
// that matches decides. When none matches, the chain's Fallback decides. The
// model follows the retry policies of the AWS SDKs and the acceptors of
// Smithy waiters.
//
// This package is the directive core: attempts, directives, matchers on
// exit status, output, error code and HTTP status, chains and fallbacks. It
// imports no project package. Its subpackages build on it: acceptor/jmes
// (JMESPath path matchers and --query), acceptor/waitermodel (botocore and
// Smithy waiter models), acceptor/errorcode (error codes of failed
// attempts, which the runner stores in Attempt.ErrorCode) and
// acceptor/botocore (the built-in botocore models).
package acceptor

// Directive is what the strategy does after an attempt: succeed, fail, or
// retry for a reason. The zero value, NoDecision, means "no acceptor
// matched": it is never returned by Chain.Evaluate.
type Directive int

// The directives. RetryServer, RetryClient, RetryThrottle and RetryTimeout
// are all retries; they differ in reason, which decides the token cost and
// the backoff base.
const (
	NoDecision Directive = iota
	Succeed
	Fail
	RetryServer
	RetryClient
	RetryThrottle
	RetryTimeout
)

// IsRetry reports whether d asks for another attempt.
func (d Directive) IsRetry() bool { return d >= RetryServer }

// IsThrottle reports whether d is a retry for throttling.
func (d Directive) IsThrottle() bool { return d == RetryThrottle }

// String names the directive the way logs and reports show it:
// "success", "failure", "retry (server-side)", "retry (throttling)", ….
func (d Directive) String() string {
	switch d {
	case Succeed:
		return "success"
	case Fail:
		return "failure"
	case RetryServer:
		return "retry (server-side)"
	case RetryClient:
		return "retry (client-side)"
	case RetryThrottle:
		return "retry (throttling)"
	case RetryTimeout:
		return "retry (timeout)"
	}
	return "no decision"
}

// Reason is the reason of a retry directive: "server-side", "client-side",
// "throttling" or "timeout"; "" for other directives.
func (d Directive) Reason() string {
	switch d {
	case RetryServer:
		return "server-side"
	case RetryClient:
		return "client-side"
	case RetryThrottle:
		return "throttling"
	case RetryTimeout:
		return "timeout"
	}
	return ""
}

// State is the state an acceptor leads to when it matches.
type State int

// The acceptor states. Retry is a server-side retry; Throttle a retry for
// throttling.
const (
	StateSuccess State = iota + 1
	StateFailure
	StateRetry
	StateThrottle
)

// Directive returns the directive that s leads to.
func (s State) Directive() Directive {
	switch s {
	case StateSuccess:
		return Succeed
	case StateFailure:
		return Fail
	case StateRetry:
		return RetryServer
	case StateThrottle:
		return RetryThrottle
	}
	return NoDecision
}

// String returns "success", "failure", "retry" or "throttle".
func (s State) String() string {
	switch s {
	case StateSuccess:
		return "success"
	case StateFailure:
		return "failure"
	case StateRetry:
		return "retry"
	case StateThrottle:
		return "throttle"
	}
	return "unknown"
}
