package command

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"
)

// lookPath finds the file to execute for name as Go's exec.LookPath does
// on Windows, in the attempt's own PATH: a name with a path separator or
// a drive is used as is (relative to dir); any other is looked up in the
// directories of pathList (the current directory is not searched, as Go
// does not). A name without an extension is tried with each of PATHEXT's
// (.COM;.EXE;.BAT;.CMD by default), a name with one as is first. A .bat
// or .cmd file is started by CreateProcess through cmd.exe, as Go does.
// No file: ErrCommandNotFound (127); a directory: 126.
func lookPath(name, pathList, dir string) (string, *StartError) {
	if name == "" {
		return "", &StartError{Name: name, Err: ErrCommandNotFound, Code: 127}
	}
	exts := pathExt()
	if strings.ContainsAny(name, `/\:`) {
		if p, ok := findExecutable(inDir(dir, name), exts); ok {
			return p, nil
		}
		if fi, err := os.Stat(inDir(dir, name)); err == nil && fi.IsDir() {
			return "", &StartError{Name: name, Err: syscall.EISDIR, Code: 126}
		}
		return "", &StartError{Name: name, Err: syscall.ENOENT, Code: 127}
	}
	for _, d := range filepath.SplitList(pathList) {
		if d == "" {
			continue
		}
		if p, ok := findExecutable(inDir(dir, filepath.Join(d, name)), exts); ok {
			return p, nil
		}
	}
	return "", &StartError{Name: name, Err: ErrCommandNotFound, Code: 127}
}

// pathExt is PATHEXT's extensions, lower case, or Windows' default.
func pathExt() []string {
	var exts []string
	for _, e := range strings.Split(strings.ToLower(os.Getenv("PATHEXT")), ";") {
		if e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		exts = append(exts, e)
	}
	if len(exts) == 0 {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	return exts
}

// findExecutable returns path, or path with one of exts, that is a regular
// file.
func findExecutable(path string, exts []string) (string, bool) {
	if filepath.Ext(path) != "" {
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			return path, true
		}
	}
	for _, e := range exts {
		if fi, err := os.Stat(path + e); err == nil && fi.Mode().IsRegular() {
			return path + e, true
		}
	}
	return "", false
}

// inDir resolves a relative path against the child's working directory.
func inDir(dir, path string) string {
	if dir == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// startError explains a failed start of path: a working directory that
// cannot be entered, a file that is gone (127), or one Windows cannot run
// (ERROR_BAD_EXE_FORMAT, access denied: 126).
func startError(name, path, dir string, err error) *StartError {
	if dir != "" {
		if fi, serr := os.Stat(dir); serr != nil || !fi.IsDir() {
			return &StartError{Name: name, Err: fmt.Errorf("cannot change directory to %s: %w", dir, err), Code: 126}
		}
	}
	if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND) {
		return &StartError{Name: name, Err: err, Code: 127}
	}
	return &StartError{Name: name, Err: err, Code: 126}
}

// pathOf returns the value of kv, an environment entry, when it is PATH,
// whatever its case: Windows spells it Path, and its variable names are
// case-insensitive.
func pathOf(kv string) (string, bool) {
	if len(kv) > 5 && strings.EqualFold(kv[:5], "PATH=") {
		return kv[5:], true
	}
	return "", false
}
