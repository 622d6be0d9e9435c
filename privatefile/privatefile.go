// Package privatefile opens, checks and locks the files retry keeps state
// in for the user who runs it — scope files (bucket/file) and --state files
// (runner/durable): never through a symbolic link, never blocking on a
// FIFO planted at the path, only a private regular file the effective user
// owns (no permission for group or others: what others could read leaks,
// and what they could write cannot be trusted), and an exclusive flock for each read-modify-write. Each caller words the
// refusal for its own files (Refusal carries what was found).
package privatefile

import (
	"errors"
	"fmt"
	"os"
)

// Refusal is a path that does not hold a private regular file of the
// effective user: a symbolic link, something that is not a regular file
// (Kind says what), a file another user owns, or one of the user's whose
// mode lets group or others read or write it (Exposed). A mode is refused
// rather than mended: what others could write is not state to trust.
type Refusal struct {
	Path    string
	Symlink bool   // a symbolic link, refused rather than followed
	Kind    string // what a path that is not a regular file holds: "a FIFO", "a directory", …; "" otherwise
	Dir     bool   // a directory (Kind is "a directory")
	// Foreign: the file is Owner's, not Me's (the effective user's).
	Foreign   bool
	Owner, Me uint32
	// Exposed: the file is the user's, but its mode (Mode) gives group or
	// others some permission.
	Exposed bool
	Mode    os.FileMode
	// On Windows, where owners are SIDs and permissions a DACL: OwnerSID
	// and MeSID for Foreign; for Exposed, Grantee is the account other than
	// the user (a SID, or DOMAIN\name when it has one) that the file's DACL
	// lets in ("everyone" for a DACL that is missing).
	OwnerSID, MeSID, Grantee string
}

// OwnerText says who owns the file of a Foreign refusal: "uid N", or its
// SID on Windows.
func (r *Refusal) OwnerText() string {
	if r.OwnerSID != "" {
		return r.OwnerSID
	}
	return fmt.Sprintf("uid %d", r.Owner)
}

// MeText says who the user is, as OwnerText says the owner.
func (r *Refusal) MeText() string {
	if r.MeSID != "" {
		return r.MeSID
	}
	return fmt.Sprintf("uid %d", r.Me)
}

// Exposure says what makes an Exposed file not private: "has mode 0644",
// or on Windows "grants NAME access (its DACL)".
func (r *Refusal) Exposure() string {
	if r.Grantee != "" {
		return "grants " + r.Grantee + " access (its DACL)"
	}
	return fmt.Sprintf("has mode %04o", r.Mode)
}

func (r *Refusal) Error() string {
	switch {
	case r.Symlink:
		return r.Path + " is a symbolic link"
	case r.Kind != "":
		return r.Path + " is not a regular file (" + r.Kind + ")"
	case r.Foreign:
		return fmt.Sprintf("%s is owned by %s, not by this user (%s)", r.Path, r.OwnerText(), r.MeText())
	case r.Exposed:
		return r.Path + " " + r.Exposure() + ": not private"
	}
	return r.Path + " is refused"
}

// Check returns the *Refusal of fi, the file at path as Lstat or Stat saw
// it, when it is not a regular file of the effective user; nil otherwise.
// Whether it is private is CheckPrivate's question, asked once the caller
// holds the file (a reset removes a file of ours whatever its mode).
func Check(path string, fi os.FileInfo) error {
	m := fi.Mode()
	switch {
	case m&os.ModeSymlink != 0:
		return &Refusal{Path: path, Symlink: true}
	case !m.IsRegular():
		return &Refusal{Path: path, Kind: Kind(m), Dir: m.IsDir()}
	}
	return CheckOwner(path, fi)
}

// CheckOwner returns the *Refusal of fi when another user owns it: root
// using a state planted by nobody must not let nobody decide its retries.
// Where the platform says nothing of owners, nothing is refused.
func CheckOwner(path string, fi os.FileInfo) error {
	owner, ok := ownerOf(fi)
	if !ok {
		return nil
	}
	if me := uint32(os.Geteuid()); owner != me {
		return &Refusal{Path: path, Foreign: true, Owner: owner, Me: me}
	}
	return nil
}

// Kind says what a file of mode m that is not regular is: "a FIFO", "a
// socket", "a device", "a directory"; its type letters otherwise.
func Kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}

// ErrWouldBlock is what TryLock returns (errors.Is) when another open file
// holds the lock.
var ErrWouldBlock error = errWouldBlock

// Lock takes an exclusive flock on f, waiting for it; closing f releases
// it.
func Lock(f *os.File) error { return lockFile(f, false) }

// TryLock takes an exclusive flock on f without waiting: ErrWouldBlock
// when another open file holds the lock.
func TryLock(f *os.File) error { return lockFile(f, true) }

// Same reports whether path still names the file f has open: a writer
// that replaces the file (rename) or removes it may have done so while f
// waited for the lock.
func Same(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// IsRefusal reports whether err is a *Refusal, and returns it.
func IsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}
