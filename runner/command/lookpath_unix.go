//go:build unix

package command

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// lookPath finds the file to execute for name, as a shell does: a name with
// a slash is used as is (relative to dir), and execve(2) says whether it
// can run (startError explains why not); any other is looked up in the
// directories of pathList, an empty entry meaning the working directory.
// The first executable regular file wins; when there is none but some
// candidate exists, the error is EACCES (126), else ErrCommandNotFound
// (127).
func lookPath(name, pathList, dir string) (string, *StartError) {
	if name == "" {
		return "", &StartError{Name: name, Err: ErrCommandNotFound, Code: 127}
	}
	if strings.Contains(name, "/") {
		// No stat(2) and access(2) before every attempt: the exec finds
		// out as much, and only a failed one pays for the explanation.
		return name, nil
	}
	denied := false
	for _, d := range filepath.SplitList(pathList) {
		if d == "" {
			d = "."
		}
		cand := d + "/" + name
		fi, err := os.Stat(inDir(dir, cand))
		if err != nil {
			continue
		}
		if fi.IsDir() || !executable(inDir(dir, cand), fi) {
			denied = true
			continue
		}
		return cand, nil
	}
	if denied {
		return "", &StartError{Name: name, Err: syscall.EACCES, Code: 126}
	}
	return "", &StartError{Name: name, Err: ErrCommandNotFound, Code: 127}
}

// inDir resolves a relative path against the child's working directory.
func inDir(dir, path string) string {
	if dir == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

func executable(path string, fi os.FileInfo) bool {
	return fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 && syscall.Access(path, 1 /* X_OK */) == nil
}

// startError explains a failed fork/exec of path.
func startError(name, path, dir string, err error) *StartError {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return &StartError{Name: name, Err: err, Code: 126}
	}
	if dir != "" {
		if fi, serr := os.Stat(dir); serr != nil || !fi.IsDir() {
			return &StartError{Name: name, Err: fmt.Errorf("cannot change directory to %s: %w", dir, errno), Code: 126}
		}
	}
	if errno == syscall.ENOENT || errno == syscall.ENOTDIR {
		if _, serr := os.Stat(inDir(dir, path)); serr != nil {
			return &StartError{Name: name, Err: syscall.ENOENT, Code: 127}
		}
		// The file is there: its interpreter is not, which is "not found"
		// (127) for sh, bash, env and timeout too.
		if interp := shebang(inDir(dir, path)); interp != "" {
			return &StartError{Name: name, Err: fmt.Errorf("%s: bad interpreter: %w", interp, errno), Code: 127}
		}
	}
	if errno == syscall.EACCES {
		if fi, serr := os.Stat(inDir(dir, path)); serr == nil && fi.IsDir() {
			return &StartError{Name: name, Err: syscall.EISDIR, Code: 126}
		}
	}
	return &StartError{Name: name, Err: errno, Code: 126}
}

// shebang returns the interpreter named on a script's #! line, or "".
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, 256)
	n, _ := f.Read(b)
	line, ok := bytes.CutPrefix(b[:n], []byte("#!"))
	if !ok {
		return ""
	}
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if f := strings.Fields(string(line)); len(f) > 0 {
		return f[0]
	}
	return ""
}

// process is one attempt's leader and, through its process group and

// pathOf returns the value of kv, an environment entry, when it is PATH.
func pathOf(kv string) (string, bool) { return strings.CutPrefix(kv, "PATH=") }
