//go:build unix && !linux

package durable

import "errors"

// errNoTmpfile: only Linux makes unnamed files (O_TMPFILE); a first
// write here goes through a named temporary file.
var errNoTmpfile = errors.New("no O_TMPFILE")

func openTmpfile(string) (int, error) { return -1, errNoTmpfile }

func linkTmpfile(int, string) error { return errNoTmpfile }
