//go:build !retry_noredact

package echo

// redactEcho says whether Writer redacts what it repeats: always, but in
// the build bench/redact.sh makes with -tags retry_noredact to measure
// what redaction costs against the same build without it. No flag or
// variable turns it off.
const redactEcho = true
