// Package errorcode finds the error code and message of a failed attempt:
// in the error lines that known CLIs write to stderr (AWS CLI, gcloud,
// kubectl, the Azure CLI, curl, gh), by an --error-pattern regexp, or in an HTTP error
// response's headers and body (AWS JSON and XML errors). The runner stores
// what it finds in acceptor.Attempt's ErrorCode, which the error matchers
// compare.
//
// It imports no project package.
package errorcode
