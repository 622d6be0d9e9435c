//go:build !unix

package durable

import "errors"

// File is a state file locked for the whole invocation; this platform has
// none (see file_unix.go).
type File struct{}

// ErrBusy is returned when another invocation holds the state.
var ErrBusy = errors.New("busy: another retry is using this state")

// RefusedError is a path that does not hold a private regular file.
type RefusedError struct{ Path, Problem string }

func (e *RefusedError) Error() string { return e.Path + ": " + e.Problem }

var errUnsupported = errors.New("durable state needs flock and O_NOFOLLOW, which this platform lacks")

// MakeDir fails: durable state is for Unix systems.
func MakeDir(path string) error { return errUnsupported }

// Lock fails: durable state is for Unix systems.
func Lock(path string) (*File, error) { return nil, errUnsupported }

// Read fails.
func (fl *File) Read() (*State, error) { return nil, errUnsupported }

// Write fails.
func (fl *File) Write(*State) error { return errUnsupported }

// Remove fails.
func (fl *File) Remove() error { return errUnsupported }

// Exists reports false.
func (fl *File) Exists() bool { return false }

// Close does nothing.
func (fl *File) Close() error { return nil }

// ReadFile fails.
func ReadFile(path string) (*State, error) { return nil, errUnsupported }
