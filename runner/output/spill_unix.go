//go:build unix

package output

import "os"

// spillFile makes a new temporary file in dir ("" is os.TempDir()) and
// unlinks it at once: it lives as long as it is open.
func spillFile(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, "retry-capture-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
