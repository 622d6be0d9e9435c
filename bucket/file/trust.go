package file

import (
	"fmt"
	"os"

	"github.com/retry-dev/retry/privatefile"
)

// checkStateDir refuses a state directory that is not a directory or not
// this user's, and makes one this user owns private (0700).
func checkStateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		// A symlink to a directory of ours is how many set up ~/.local;
		// judge what it points to.
		if fi, err = os.Stat(dir); err != nil {
			return fmt.Errorf("state directory: %w", err)
		}
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: state directory %s is not a directory", ErrUntrusted, dir)
	}
	if err := privatefile.CheckOwner("state directory "+dir, fi); err != nil {
		return untrusted(err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("%w: state directory %s has mode %04o and cannot be made private: %v", ErrUntrusted, dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// openStateFile opens the scope file at path, creating it (0600), as a
// private regular file of this user: a symlink, a FIFO, another user's file
// or one of ours that group or others may read or write is refused with
// ErrUntrusted.
func openStateFile(path string) (*os.File, error) {
	f, err := privatefile.Open(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, untrusted(err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = privatefile.CheckPrivate(path, fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, untrusted(err)
	}
	return f, nil
}

// untrusted words a refusal of privatefile as the scope's ErrUntrusted;
// other errors pass unchanged.
func untrusted(err error) error {
	r, ok := privatefile.IsRefusal(err)
	switch {
	case !ok:
		return err
	case r.Symlink:
		return fmt.Errorf("%w: %s is a symbolic link; remove it", ErrUntrusted, r.Path)
	case r.Kind != "":
		return fmt.Errorf("%w: %s is not a regular file (%s); remove it", ErrUntrusted, r.Path, r.Kind)
	case r.Exposed:
		if r.Grantee != "" { // Windows: its DACL
			return fmt.Errorf("%w: %s %s: others may read or write it; remove it", ErrUntrusted, r.Path, r.Exposure())
		}
		return fmt.Errorf("%w: %s has mode %04o: group or others may read or write it; remove it (or chmod 600 it if you trust what it holds)", ErrUntrusted, r.Path, r.Mode)
	}
	return fmt.Errorf("%w: %s is owned by %s, not by this user (%s)", ErrUntrusted, r.Path, r.OwnerText(), r.MeText())
}
