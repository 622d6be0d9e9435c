package privatefile

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a file's owner is a SID and its permissions a DACL. A file
// Open creates gets a protected DACL (no inherited entries) that grants
// the user alone full access; a file is private when its DACL lets in no
// account but the user's own, SYSTEM's and the Administrators' (the last
// two hold the backup and take-ownership privileges, so an entry for them
// exposes nothing they could not read already: root's place on Unix). The
// lock is LockFileEx's, on a byte far past any state's end, so that
// ReadFile (retry state show) reads a locked file as on Unix.

var errWouldBlock error = windows.ERROR_LOCK_VIOLATION

// me is the SID of the user retry runs as, and whether the token is an
// administrator's (whose files an elevated process creates are owned by
// the Administrators group).
var me = sync.OnceValues(func() (*windows.SID, bool) {
	t := windows.GetCurrentProcessToken()
	u, err := t.GetTokenUser()
	if err != nil {
		return nil, false
	}
	admin := false
	if a, err := windows.CreateWellKnownSid(windows.WinBuiltinAdministratorsSid); err == nil {
		admin, _ = t.IsMember(a)
	}
	return u.User.Sid, admin
})

// ownerOf: os.FileInfo says nothing of owners on Windows; Open and
// CheckPrivate read the owner from the file's security descriptor.
func ownerOf(os.FileInfo) (uint32, bool) { return 0, false }

// Open opens path with flag (and, when it creates the file, an owner-only
// DACL; perm is not used) without following a symbolic link or junction
// (FILE_FLAG_OPEN_REPARSE_POINT: a reparse point is refused) and returns
// it only when it is a regular file on a disk owned by the user (a
// *Refusal otherwise). The handle shares read, write and delete, so that
// a state can be renamed over or removed while another invocation has it
// open, as on Unix.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil {
		if err := Check(path, fi); err != nil {
			return nil, err
		}
	}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var access uint32 = windows.GENERIC_READ
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	case os.O_RDWR:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	var disposition uint32 = windows.OPEN_EXISTING
	var sa *windows.SecurityAttributes
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		disposition = windows.CREATE_NEW
	case flag&os.O_CREATE != 0:
		disposition = windows.OPEN_ALWAYS
	}
	if flag&os.O_CREATE != 0 {
		if sa, err = ownerOnly(); err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
	h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		sa, disposition, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		if errors.Is(err, windows.ERROR_FILE_EXISTS) {
			err = fs.ErrExist
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := checkHandle(path, h); err != nil {
		_ = windows.CloseHandle(h)
		return nil, err
	}
	f := os.NewFile(uintptr(h), path)
	if flag&os.O_TRUNC != 0 {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// ownerOnly is the security of a new private file: its DACL, protected
// from inheritance, grants the user full access and nobody else any.
func ownerOnly() (*windows.SecurityAttributes, error) {
	sid, _ := me()
	if sid == nil {
		return nil, errors.New("the user's SID cannot be read")
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;FA;;;" + sid.String() + ")")
	if err != nil {
		return nil, err
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	return sa, nil
}

// checkHandle refuses what h opened when it is not a regular file of the
// user: a reparse point (symbolic link, junction), something that is not a
// file on a disk (a pipe, a console, a device), or another user's file.
func checkHandle(path string, h windows.Handle) error {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return &os.PathError{Op: "stat", Path: path, Err: err}
	}
	switch {
	case info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0:
		return &Refusal{Path: path, Symlink: true}
	case info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0:
		return &Refusal{Path: path, Kind: "a directory", Dir: true}
	}
	if t, _ := windows.GetFileType(h); t != windows.FILE_TYPE_DISK {
		kind := "a device"
		if t == windows.FILE_TYPE_PIPE {
			kind = "a FIFO"
		}
		return &Refusal{Path: path, Kind: kind}
	}
	sd, err := windows.GetSecurityInfo(h, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return &os.PathError{Op: "GetSecurityInfo", Path: path, Err: err}
	}
	return checkOwnerSID(path, sd)
}

// checkOwnerSID refuses a file whose owner is not the user (nor, for an
// administrator, the Administrators group an elevated process gives the
// files it creates).
func checkOwnerSID(path string, sd *windows.SECURITY_DESCRIPTOR) error {
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return nil // a file system that keeps no owner (FAT): nothing to compare
	}
	sid, admin := me()
	if sid == nil || owner.Equals(sid) {
		return nil
	}
	if admin && owner.IsWellKnown(windows.WinBuiltinAdministratorsSid) {
		return nil
	}
	return &Refusal{Path: path, Foreign: true, OwnerSID: account(owner), MeSID: account(sid)}
}

// CheckPrivate returns a *Refusal (Exposed) when the DACL of the file at
// path lets in an account other than the user's, SYSTEM's or the
// Administrators' (perm, the mode bits Unix checks, says nothing here), or
// when the file has no DACL (everyone may do anything); nil otherwise.
func CheckPrivate(path string, perm os.FileMode) error {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION|windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return &os.PathError{Op: "GetNamedSecurityInfo", Path: path, Err: err}
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return &Refusal{Path: path, Exposed: true, Grantee: "everyone (no DACL)"}
	}
	sid, _ := me()
	owner, _, _ := sd.Owner()
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if windows.GetAce(dacl, i, &ace) != nil {
			continue
		}
		if !allows(ace) {
			continue
		}
		who := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if trusted(who, sid, owner) {
			continue
		}
		return &Refusal{Path: path, Exposed: true, Grantee: account(who)}
	}
	return nil
}

// Access-allowed entry types (winnt.h): ACCESS_ALLOWED, the compound one,
// the object one and the callback ones.
const (
	aceAllowed         = 0
	aceAllowedCompound = 4
	aceAllowedObject   = 5
	aceAllowedCallback = 9
	aceAllowedCbObject = 11
)

// allows reports whether ace grants some access to this file (an
// inherit-only entry applies to the children of a directory only).
func allows(ace *windows.ACCESS_ALLOWED_ACE) bool {
	switch ace.Header.AceType {
	case aceAllowed, aceAllowedCompound, aceAllowedObject, aceAllowedCallback, aceAllowedCbObject:
	default:
		return false
	}
	return ace.Header.AceFlags&windows.INHERIT_ONLY_ACE == 0 && ace.Mask != 0
}

// trusted: the user, the file's owner when that is the user, SYSTEM, the
// Administrators, and OWNER RIGHTS (the owner, who is the user: Open
// refuses another's file).
func trusted(who, me, owner *windows.SID) bool {
	switch {
	case me != nil && who.Equals(me):
		return true
	case owner != nil && me != nil && owner.Equals(me) && who.Equals(owner):
		return true
	}
	for _, k := range []windows.WELL_KNOWN_SID_TYPE{windows.WinLocalSystemSid, windows.WinBuiltinAdministratorsSid, windows.WinCreatorOwnerRightsSid} {
		if who.IsWellKnown(k) {
			return true
		}
	}
	return false
}

// account names sid as DOMAIN\name when it has a name, else by its SID.
func account(sid *windows.SID) string {
	if name, domain, _, err := sid.LookupAccount(""); err == nil && name != "" {
		if domain != "" {
			return domain + `\` + name
		}
		return name
	}
	return sid.String()
}

// lockAt is where the lock byte lies: far past the end of any state, so
// that reading the file is never refused because of the lock (Windows'
// byte-range locks are mandatory).
const lockAt = 1 << 62

func lockFile(f *os.File, nonBlocking bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if nonBlocking {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	var lerr error
	if err := rc.Control(func(h uintptr) {
		ol := windows.Overlapped{Offset: uint32(lockAt & 0xffffffff), OffsetHigh: uint32(lockAt >> 32)}
		lerr = windows.LockFileEx(windows.Handle(h), flags, 0, 1, 0, &ol)
	}); err != nil {
		return err
	}
	if lerr != nil {
		return &os.PathError{Op: "LockFileEx", Path: f.Name(), Err: lerr}
	}
	return nil
}
