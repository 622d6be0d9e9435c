//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd || solaris || windows)

package bucket

import (
	"errors"
	"os"
)

const openNoFollow = 0

// lockFile fails: this platform has no file locks the scope can rely on.
func lockFile(*os.File) error {
	return errors.New("scopes need file locks, which this platform lacks")
}
