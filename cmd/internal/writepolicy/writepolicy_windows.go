package writepolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The write policy on Windows, with the rules of the Unix one where
// Windows has the same things:
//
//   - a regular file or a missing path is replaced by a temp file in the
//     same directory and a rename (MoveFileEx, replacing), appended to, or
//     truncated and written;
//   - a symbolic link is followed by the system, and its target written
//     by these rules;
//   - a device or a pipe is written through, never created, renamed,
//     truncated or removed: the reserved DOS names (NUL, CON, CONOUT$,
//     COM1, …, with any extension or directory before them), the device
//     namespace (\\.\pipe\NAME, \\.\CON, \\?\… without a drive) and
//     whatever os.Stat says is not a regular file or a directory;
//   - a directory is refused.
//
// Windows has no sticky directories (who may plant a file where is the
// directory's DACL) and no FIFO whose writer's open waits for a reader: a
// named pipe's client open fails at once when no server instance waits,
// and the sink's error says so.

// ID is the file a path is written to, as Identify found it.
type ID struct {
	place  string // the file's absolute path
	file   os.FileInfo
	exists bool
	// Through: the path is written through (a device, a pipe), never
	// created, truncated or replaced.
	Through bool
	// Mode is the type of the existing file (0 for a regular file or none).
	Mode fs.FileMode
}

// Identify says which file path is written to.
func Identify(path string) (ID, error) {
	if err := checkPath(path); err != nil {
		return ID{}, err
	}
	if isDevicePath(path) {
		return ID{place: strings.ToUpper(path), Through: true, Mode: fs.ModeDevice}, nil
	}
	id := ID{place: path}
	if abs, err := filepath.Abs(path); err == nil {
		id.place = abs
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return id, nil
	}
	if err != nil {
		return ID{}, err
	}
	id.file, id.exists, id.Mode = fi, true, fi.Mode().Type()
	id.Through = !fi.Mode().IsRegular()
	return id, nil
}

// FileID is the ID of an open file (retry's stdin).
func FileID(f *os.File) (ID, bool) {
	fi, err := f.Stat()
	if err != nil {
		return ID{}, false
	}
	return ID{file: fi, exists: true, Mode: fi.Mode().Type()}, true
}

// Same reports whether a and b are one file.
func (a ID) Same(b ID) bool {
	if a.exists && b.exists {
		return os.SameFile(a.file, b.file)
	}
	return a.place != "" && strings.EqualFold(a.place, b.place)
}

// Feeds reports whether what is written to the file can come back to a
// reader of it: a regular file (or a missing one) or a pipe.
func (a ID) Feeds() bool {
	return a.Mode == 0 || a.Mode&fs.ModeNamedPipe != 0
}

// checkPath refuses an empty path and a directory.
func checkPath(path string) error {
	if path == "" {
		return errors.New("empty path")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory; want a file to write", path)
	}
	return nil
}

// through reports whether path is written through.
func through(path string) bool {
	if isDevicePath(path) {
		return true
	}
	fi, err := os.Stat(path)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}

// isDevicePath reports whether path names a device or a pipe rather than
// a file (see the policy above).
func isDevicePath(path string) bool {
	p := strings.ReplaceAll(path, "/", `\`)
	if strings.HasPrefix(p, `\\.\`) || strings.HasPrefix(p, `\\?\`) && !strings.Contains(p[4:], `:`) {
		return true
	}
	base := strings.ToUpper(filepath.Base(p))
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	switch base = strings.TrimRight(base, " "); base {
	case "NUL", "CON", "PRN", "AUX", "CONIN$", "CONOUT$":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '1' && base[3] <= '9'
}

// Check makes sure path can be written before a run starts: a regular or
// missing path needs a directory where a file can be created (a temp file
// is created there and removed); a path written through is opened for
// writing and closed (a named pipe without a server fails here). A
// directory is refused.
func Check(path string) error {
	if err := checkPath(path); err != nil {
		return err
	}
	if through(path) {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write %s in %s: %v", base, filepath.Clean(dir), err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// Replace writes data as the whole content of path: a regular or missing
// path through a temp file in its directory and a rename, so that a reader
// sees the old content or the new one; a path written through gets data
// written to it as is. done is not used: no open waits on Windows.
func Replace(path string, data []byte, perm fs.FileMode, done <-chan struct{}) error {
	if err := checkPath(path); err != nil {
		return err
	}
	if through(path) {
		return writeTo(path, os.O_WRONLY, data)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// Append appends data to path, created with perm when missing; a path
// written through gets data written to it.
func Append(path string, data []byte, perm fs.FileMode, done <-chan struct{}) error {
	if err := checkPath(path); err != nil {
		return err
	}
	if through(path) {
		return writeTo(path, os.O_WRONLY, data)
	}
	return writeTo(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, data)
}

func writeTo(path string, flag int, data []byte) error {
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Stream is a sink written line by line during a run (--log-file). It
// remembers its first error: a failed write is not retried, later writes
// are dropped, and Err says what was lost.
type Stream struct {
	path string
	f    *os.File
	mu   sync.Mutex
	err  error
}

// Open opens path as a stream: a regular or missing path is created or
// truncated, as a shell's "> FILE" does; a path written through is opened
// as it is.
func Open(path string) (*Stream, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if through(path) {
		flag = os.O_WRONLY
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return nil, err
	}
	return &Stream{path: path, f: f}, nil
}

// Write writes p whole, or fails and remembers why.
func (s *Stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.f.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// Abort does nothing on Windows: no write waits for a reader's open.
func (s *Stream) Abort() {}

// Err returns the first error of the stream's writes, or nil.
func (s *Stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Path is the path the stream was opened with.
func (s *Stream) Path() string { return s.path }

// Close closes the file and returns the first error of the stream's
// writes or of closing it.
func (s *Stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		if err := s.f.Close(); err != nil && s.err == nil {
			s.err = err
		}
		s.f = nil
	}
	return s.err
}
