package durable

import (
	"errors"
	"os"

	"github.com/retry-dev/retry/privatefile"
)

// createTemp creates the new temporary file name with an owner-only DACL
// (privatefile.Open), failing when anything is there. Its handle shares
// delete, so that it can be renamed over the state or unlinked while open,
// as the writes of File do on Unix.
func createTemp(name string) (*os.File, error) {
	return privatefile.Open(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// errNoTmpfile: Windows makes no unnamed files; a first write goes through
// a named temporary file, hard-linked at the path (CreateHardLink).
var errNoTmpfile = errors.New("no unnamed files on Windows")

func openTmpfile(string) (*os.File, error) { return nil, errNoTmpfile }

func linkTmpfile(*os.File, string) error { return errNoTmpfile }

// datasync makes the new file f durable: File.Sync, FlushFileBuffers.
func datasync(f *os.File) error { return f.Sync() }
