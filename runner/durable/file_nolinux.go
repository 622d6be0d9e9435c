//go:build unix && !linux

package durable

import (
	"errors"
	"os"
)

// errNoTmpfile: only Linux makes unnamed files (O_TMPFILE); a first
// write here goes through a named temporary file.
var errNoTmpfile = errors.New("no O_TMPFILE")

func openTmpfile(string) (*os.File, error) { return nil, errNoTmpfile }

func linkTmpfile(*os.File, string) error { return errNoTmpfile }

// datasync makes the data of the new file f durable: File.Sync, which is
// fsync(2), and on macOS F_FULLFSYNC (fsync there only hands the data to
// the drive), with fsync as the fallback.
func datasync(f *os.File) error { return f.Sync() }
