package acceptor

// ConnectFallback classifies an attempt no acceptor matched, for --tcp (run
// and wait alike): a connection accepted succeeds; a connect stopped by
// --attempt-timeout is a retry (timeout); a transient error (refused,
// unreachable, a DNS failure) is a retry (client-side); any other error
// fails.
func ConnectFallback(a *Attempt) (Directive, string) {
	switch {
	case a.TimedOut:
		return RetryTimeout, "connect timed out"
	case a.Err != nil && a.Transient:
		return RetryClient, a.Err.Error()
	case a.Err != nil:
		return Fail, a.Err.Error()
	}
	return Succeed, "connection accepted"
}
