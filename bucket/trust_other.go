//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd || solaris)

package bucket

import "os"

const openNonBlock = 0

func isSymlinkLoop(error) bool { return false }

// checkStateDir trusts the directory: this platform has no Unix owners
// and modes to check.
func checkStateDir(string) error { return nil }

// checkStateFile refuses only what is not a regular file.
func checkStateFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &os.PathError{Op: "open", Path: f.Name(), Err: ErrUntrusted}
	}
	return nil
}
