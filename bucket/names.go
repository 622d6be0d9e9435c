package bucket

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrScopeName is wrapped by the error a scope store (bucket/file, bucket/redis) returns for a name it
// refuses: empty, or holding a path separator (/ or \) or a NUL byte.
var ErrScopeName = errors.New("invalid scope name")

// CheckName returns an error wrapping ErrScopeName when name cannot name a
// scope: empty, "." or "..", or holding a path separator, a NUL byte or
// another control character (a newline would split the name over two
// lines of `scope list`).
func CheckName(name string) error { return checkScopeName(name) }

func checkScopeName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty", ErrScopeName)
	case strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, os.PathSeparator):
		return fmt.Errorf("%w %q: no path separators allowed", ErrScopeName, name)
	case strings.ContainsRune(name, 0):
		return fmt.Errorf("%w %q: no NUL bytes allowed", ErrScopeName, name)
	case name == "." || name == "..":
		return fmt.Errorf("%w %q: not a name", ErrScopeName, name)
	case strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return fmt.Errorf("%w %q: no control characters (newlines, tabs) allowed", ErrScopeName, name)
	}
	return nil
}
