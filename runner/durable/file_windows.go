package durable

import (
	"errors"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"

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

// renameOver puts the new file f (named tmp) at path, over the file held
// there, which this invocation has open and locked. Windows refuses
// MoveFileEx over an open file; a rename with POSIX semantics
// (SetFileInformationByHandle, FileRenameInfoEx with
// FILE_RENAME_FLAG_POSIX_SEMANTICS, Windows 10 1709 and later) replaces
// it while it is open, as rename(2) does, f's lock held throughout. Where
// that is not there (older Windows; Wine 8 answers "invalid parameter"),
// the held file is closed and then replaced: between the two another
// invocation may lock the old file for a moment, and its check that the
// path still names what it locked (privatefile.Same) sends it to the new,
// locked one.
func renameOver(_ *os.File, tmp, path string, held *os.File) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	name, err := windows.UTF16FromString(abs)
	if err != nil {
		return err
	}
	// FILE_RENAME_INFO: Flags, RootDirectory, FileNameLength, FileName.
	type renameInfo struct {
		Flags          uint32
		RootDirectory  windows.Handle
		FileNameLength uint32
		FileName       [1]uint16
	}
	size := int(unsafe.Offsetof(renameInfo{}.FileName)) + len(name)*2
	buf := make([]byte, size)
	ri := (*renameInfo)(unsafe.Pointer(&buf[0]))
	ri.Flags = windows.FILE_RENAME_REPLACE_IF_EXISTS | windows.FILE_RENAME_POSIX_SEMANTICS
	ri.FileNameLength = uint32((len(name) - 1) * 2)
	copy(unsafe.Slice(&ri.FileName[0], len(name)), name)
	// A handle with DELETE access, opened only for the rename: held open,
	// DELETE access would make every open without FILE_SHARE_DELETE (most
	// programs' reads of the state) fail.
	tp, err := windows.UTF16PtrFromString(tmp)
	if err != nil {
		return err
	}
	h, serr := windows.CreateFile(tp, windows.DELETE|windows.SYNCHRONIZE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if serr == nil {
		serr = windows.SetFileInformationByHandle(h, windows.FileRenameInfoEx, &buf[0], uint32(size))
		_ = windows.CloseHandle(h)
		if serr == nil {
			return nil
		}
	}
	if held != nil {
		held.Close()
	}
	return os.Rename(tmp, path)
}
