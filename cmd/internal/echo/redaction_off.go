//go:build retry_noredact

package echo

// redactEcho is false in the build bench/redact.sh times redaction
// against: never a build to ship (see redaction_on.go).
const redactEcho = false
