package runner

import "net/http"

// Exchange is what an attempt exchanged with the other end, as -v, the
// JSON log and the report show it: an HTTP call's request and response, or
// the address a TCP connect reached. The source fills it, its secrets
// already redacted (redact.URL, redact.Header): it is for people, and the
// acceptors see the attempt itself.
type Exchange struct {
	// Method and URL are the request's; RequestHeader its headers.
	Method        string
	URL           string
	RequestHeader http.Header
	// FinalURL is the URL of the response after Redirects redirects; ""
	// when none was followed.
	FinalURL  string
	Redirects int
	// Status is the response's status line, "HTTP/1.1 503 Service
	// Unavailable"; "" without a response. Header is its headers.
	Status string
	Header http.Header
	// BodyRead: the response body was read whole, BodyBytes long.
	BodyRead  bool
	BodyBytes int64
	// Error is the transport error, or why the body was not kept; "" for
	// none.
	Error string
	// Connected is the address a TCP connect reached.
	Connected string
}
