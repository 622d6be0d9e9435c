package acceptor

import "fmt"

// isThrottlingCode reports whether code means throttling whatever the
// status (the AWS SDKs list them for 400 responses). The
// code lists of this file are switches, not maps: a map literal is built
// by package initialisation at every start of retry, used or not.
func isThrottlingCode(code string) bool {
	switch code {
	case "Throttling",
		"ThrottlingException",
		"ThrottledException",
		"RequestThrottledException",
		"TooManyRequestsException",
		"ProvisionedThroughputExceededException",
		"TransactionInProgressException",
		"LimitExceededException",
		"PriorRequestNotComplete",
		"RequestThrottled",
		"EC2ThrottledException",
		"RequestLimitExceeded",
		"SlowDown",
		"BandwidthLimitExceeded":
		return true
	}
	return false
}

// isCommandThrottlingCode reports whether code is a throttling code that
// other CLIs print: kubectl (TooManyRequests), gcloud (RESOURCE_EXHAUSTED)
// and HTTP 429 as curl, gh and gcloud report it.
func isCommandThrottlingCode(code string) bool {
	switch code {
	case "TooManyRequests", "RESOURCE_EXHAUSTED", "429":
		return true
	}
	return false
}

// commandTransient returns the directive of a failed command's error code
// that says the server or the way to it failed for now, not the request:
// what HTTP 500, 503, 504 and a refused connection are to a URL
// (NoDecision for any other code). They are Kubernetes StatusReasons as
// kubectl prints them ("Error from server (ServiceUnavailable)":
// k8s.io/apimachinery's reasons for 500, 503 and 504, and ServerTimeout),
// and the codes acceptor/errorcode gives kubectl's connection errors:
// ConnectionRefused, ConnectionReset, ConnectionTimeout (not
// UnableToConnect: a certificate or a name that does not resolve stays
// wrong). retry wait polls on through them (retry run retries every failed
// command anyway).
func commandTransient(code string) Directive {
	switch code {
	case "ServiceUnavailable", "InternalError", "ServerTimeout", "Timeout":
		return RetryServer
	case "ConnectionRefused", "ConnectionReset", "ConnectionTimeout":
		return RetryClient
	}
	return NoDecision
}

// isThrottlingResponse reports whether an HTTP status with an error code is a
// throttling error under seed 002: 429; 400 with a throttling code; 403
// RequestThrottled; 502 EC2ThrottledException; 503 SlowDown or
// RequestLimitExceeded; 509 BandwidthLimitExceeded.
func isThrottlingResponse(status int, code string) bool {
	switch status {
	case 429:
		return true
	case 400:
		return isThrottlingCode(code) && code != "RequestThrottled" && code != "EC2ThrottledException" &&
			code != "SlowDown" && code != "RequestLimitExceeded" && code != "BandwidthLimitExceeded"
	case 403:
		return code == "RequestThrottled"
	case 502:
		return code == "EC2ThrottledException"
	case 503:
		return code == "SlowDown" || code == "RequestLimitExceeded"
	case 509:
		return code == "BandwidthLimitExceeded"
	}
	return false
}

// RunFallback classifies an attempt no acceptor matched, for retry run.
//
// Commands: exit 0 succeeds; a start failure, an attempt the source gave up
// on (Err set and not Transient: its output went past --max-output, it
// stopped waiting for the terminal) or a status of 126 or 127 (a shell's
// "cannot execute" and "not found") fails; an attempt
// stopped by --attempt-timeout is a retry (timeout); a known throttling error
// code is a retry (throttling); any other non-zero status is a retry
// (server-side). The throttling codes are seed 002's list plus kubectl's
// TooManyRequests, gcloud's RESOURCE_EXHAUSTED and 429.
//
// HTTP: 2xx succeeds; throttling responses (isThrottlingResponse) are a retry
// (throttling); 408, 500, 502, 503 and 504 a retry (server-side); other
// statuses fail. A transport error is a retry (client-side) when Transient,
// else a failure; a timeout is a retry (timeout).
func RunFallback(a *Attempt) (Directive, string) {
	if !a.HasExitCode() { // HTTP (or a command skipped: its Err says why)
		return httpFallback(a)
	}
	switch {
	case a.TimedOut:
		return RetryTimeout, "attempt timed out"
	case a.NotStarted:
		return Fail, fmt.Sprintf("could not start (exit status %d)", a.ExitCode)
	case a.Err != nil && !a.Transient:
		// The source gave up on it (its output went past its bound, it
		// stopped waiting for the terminal): running it again would end
		// the same way.
		return Fail, a.Err.Error()
	case a.ExitCode == 126 || a.ExitCode == 127:
		return Fail, fmt.Sprintf("exit status %d: the command cannot be executed or was not found", a.ExitCode)
	case a.ExitCode == 0 && !a.Failed:
		return Succeed, "exit status 0"
	case isThrottlingCode(a.ErrorCode) || isCommandThrottlingCode(a.ErrorCode):
		return RetryThrottle, fmt.Sprintf("exit status %d, throttling error %s", a.ExitCode, a.ErrorCode)
	}
	return RetryServer, fmt.Sprintf("exit status %d", a.ExitCode)
}

func httpFallback(a *Attempt) (Directive, string) {
	switch {
	case a.TimedOut:
		return RetryTimeout, "attempt timed out"
	case a.Err != nil && a.Transient:
		return RetryClient, a.Err.Error()
	case a.Err != nil:
		return Fail, a.Err.Error()
	}
	why := fmt.Sprintf("HTTP %d", a.Status)
	if a.ErrorCode != "" {
		why += " " + a.ErrorCode
	}
	switch {
	case a.Status >= 200 && a.Status < 300:
		return Succeed, why
	case isThrottlingResponse(a.Status, a.ErrorCode):
		return RetryThrottle, why
	}
	switch a.Status {
	case 408, 500, 502, 503, 504:
		return RetryServer, why
	}
	if isTransientErrorCode(a.ErrorCode) {
		return RetryServer, why
	}
	return Fail, why
}

// isTransientErrorCode reports whether an HTTP error response's code is
// one the AWS SDKs retry as a transient error whatever its status
// (aws-sdk-go-v2's retry.DefaultRetryableErrorCodes): S3 answers a request
// it timed out reading with 400 RequestTimeout.
func isTransientErrorCode(code string) bool {
	return code == "RequestTimeout" || code == "RequestTimeoutException"
}

// WaitFallback classifies an attempt no acceptor matched, for retry wait, as
// Smithy and botocore waiters do: a failed attempt is a failure at once, a
// successful one a retry ("not yet"). botocore's rule assumes the SDK has
// already retried transient errors, which a CLI or a plain URL has not, so
// what RunFallback calls transient keeps a wait polling:
//
//   - HTTP: the statuses and errors RunFallback retries (429 and the other
//     throttling responses, 408, 500, 502, 503, 504, a transient transport
//     error such as a refused or reset connection);
//   - commands: a known throttling error code (retry, throttling); a
//     transient one (commandTransient: kubectl's ServiceUnavailable,
//     InternalError, ServerTimeout, Timeout; ConnectionRefused,
//     ConnectionReset, ConnectionTimeout), retry server-side, or
//     client-side for the connection's;
//   - an attempt stopped by --attempt-timeout (retry, timeout).
func WaitFallback(a *Attempt) (Directive, string) {
	switch {
	case a.TimedOut:
		return RetryTimeout, "attempt timed out"
	case !a.HasExitCode() && (a.Failed || a.Err != nil): // HTTP
		if d, why := httpFallback(a); d.IsRetry() {
			return d, why
		}
	case a.Err == nil && a.Failed && (isThrottlingCode(a.ErrorCode) || isCommandThrottlingCode(a.ErrorCode)):
		return RetryThrottle, fmt.Sprintf("exit status %d, throttling error %s", a.ExitCode, a.ErrorCode)
	case a.Err == nil && a.Failed && commandTransient(a.ErrorCode) != NoDecision:
		return commandTransient(a.ErrorCode), fmt.Sprintf("exit status %d, transient error %s", a.ExitCode, a.ErrorCode)
	}
	switch {
	case a.Err != nil && a.Transient:
		return RetryClient, a.Err.Error()
	case a.Err != nil:
		return Fail, "unmatched error: " + a.Err.Error()
	case a.Failed:
		return Fail, "unmatched error: " + describeError(a)
	}
	return RetryServer, "no acceptor matched"
}

func describeError(a *Attempt) string {
	var s string
	if a.Status != 0 {
		s = fmt.Sprintf("HTTP %d", a.Status)
	} else {
		s = fmt.Sprintf("exit status %d", a.ExitCode)
	}
	if a.ErrorCode != "" {
		s += ", error code " + a.ErrorCode
		if a.ErrorMessage != "" {
			s += ": " + a.ErrorMessage
		}
	}
	return s
}
