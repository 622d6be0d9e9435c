package acceptor

import (
	"errors"
	"testing"
)

func TestWaitFallback(t *testing.T) {
	t.Parallel()
	refused := errors.New("connection refused")
	tests := []struct {
		name string
		a    Attempt
		want Directive
	}{
		{"success polls again", Attempt{ExitCode: 0}, RetryServer},
		{"command error fails", Attempt{ExitCode: 2, Failed: true}, Fail},
		{"command error code fails", Attempt{ExitCode: 254, Failed: true, ErrorCode: "AccessDenied"}, Fail},
		{"command throttling code retries", Attempt{ExitCode: 254, Failed: true, ErrorCode: "ThrottlingException"}, RetryThrottle},
		{"kubectl TooManyRequests retries", Attempt{ExitCode: 1, Failed: true, ErrorCode: "TooManyRequests"}, RetryThrottle},
		{"command timeout retries", Attempt{ExitCode: 143, Failed: true, TimedOut: true}, RetryTimeout},
		{"kubectl ServiceUnavailable retries", Attempt{ExitCode: 1, Failed: true, ErrorCode: "ServiceUnavailable"}, RetryServer},
		{"kubectl InternalError retries", Attempt{ExitCode: 1, Failed: true, ErrorCode: "InternalError"}, RetryServer},
		{"kubectl ServerTimeout retries", Attempt{ExitCode: 1, Failed: true, ErrorCode: "ServerTimeout"}, RetryServer},
		{"kubectl Timeout retries", Attempt{ExitCode: 1, Failed: true, ErrorCode: "Timeout"}, RetryServer},
		{"kubectl refused connection retries", Attempt{ExitCode: 1, Failed: true, ErrorCode: "ConnectionRefused"}, RetryClient},
		{"kubectl reset connection retries", Attempt{ExitCode: 1, Failed: true, ErrorCode: "ConnectionReset"}, RetryClient},
		{"kubectl connection timeout retries", Attempt{ExitCode: 1, Failed: true, ErrorCode: "ConnectionTimeout"}, RetryClient},
		{"kubectl cannot connect otherwise fails", Attempt{ExitCode: 1, Failed: true, ErrorCode: "UnableToConnect"}, Fail},
		{"kubectl Forbidden fails", Attempt{ExitCode: 1, Failed: true, ErrorCode: "Forbidden"}, Fail},
		{"kubectl Unauthorized fails", Attempt{ExitCode: 1, Failed: true, ErrorCode: "Unauthorized"}, Fail},
		{"kubectl NotFound fails", Attempt{ExitCode: 1, Failed: true, ErrorCode: "NotFound"}, Fail},
		{"kubectl NoResourceMatch fails", Attempt{ExitCode: 1, Failed: true, ErrorCode: "NoResourceMatch"}, Fail},
		{"HTTP 200 polls again", Attempt{Kind: HTTPAttempt, Status: 200}, RetryServer},
		{"HTTP 503 retries", Attempt{Kind: HTTPAttempt, Status: 503, Failed: true}, RetryServer},
		{"HTTP 500 retries", Attempt{Kind: HTTPAttempt, Status: 500, Failed: true}, RetryServer},
		{"HTTP 429 throttles", Attempt{Kind: HTTPAttempt, Status: 429, Failed: true}, RetryThrottle},
		{"HTTP 400 throttling code", Attempt{Kind: HTTPAttempt, Status: 400, Failed: true, ErrorCode: "ThrottlingException"}, RetryThrottle},
		{"HTTP 400 RequestTimeout polls again (the AWS SDKs' transient code)", Attempt{Kind: HTTPAttempt, Status: 400, Failed: true, ErrorCode: "RequestTimeout"}, RetryServer},
		{"HTTP 400 other code fails", Attempt{Kind: HTTPAttempt, Status: 400, Failed: true, ErrorCode: "InvalidArgument"}, Fail},
		{"HTTP 404 fails", Attempt{Kind: HTTPAttempt, Status: 404, Failed: true}, Fail},
		{"HTTP 403 fails", Attempt{Kind: HTTPAttempt, Status: 403, Failed: true}, Fail},
		{"HTTP 501 fails", Attempt{Kind: HTTPAttempt, Status: 501, Failed: true}, Fail},
		{"refused connection retries", Attempt{Kind: HTTPAttempt, Failed: true, Err: refused, Transient: true}, RetryClient},
		{"bad certificate fails", Attempt{Kind: HTTPAttempt, Failed: true, Err: errors.New("x509")}, Fail},
		{"command start failure fails", Attempt{ExitCode: 127, Failed: true, NotStarted: true, Err: errors.New("not found")}, Fail},
	}
	for _, tt := range tests {
		if got, why := WaitFallback(&tt.a); got != tt.want {
			t.Errorf("%s: WaitFallback = %v (%s), want %v", tt.name, got, why, tt.want)
		}
	}
}
