// Package actioncheck holds the tests of the repository's action.yml: a
// schema check of the action metadata and a local run of its steps with
// bash, the GITHUB_* files pointed at temporary files.
package actioncheck
