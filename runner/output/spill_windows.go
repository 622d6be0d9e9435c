package output

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/windows"
)

// spillFile makes a new temporary file in dir ("" is os.TempDir()) that
// Windows deletes when its last handle closes (FILE_FLAG_DELETE_ON_CLOSE):
// an open file cannot be unlinked there as on Unix, and a file deleted on
// close leaves nothing behind when retry is killed either.
func spillFile(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	for range 100 {
		name := filepath.Join(dir, "retry-capture-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		p, err := windows.UTF16PtrFromString(name)
		if err != nil {
			return nil, err
		}
		h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.CREATE_NEW,
			windows.FILE_ATTRIBUTE_TEMPORARY|windows.FILE_FLAG_DELETE_ON_CLOSE, 0)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(h), name), nil
	}
	return nil, &os.PathError{Op: "open", Path: dir, Err: fs.ErrExist}
}
