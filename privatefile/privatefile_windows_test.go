package privatefile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/retry-dev/retry/internal/testdir"
)

// The Windows tests of privatefile, run under Wine in CI (.ci/run). A
// second process is the test binary re-executed (PRIVATEFILE_HELPER).

func TestMain(m *testing.M) {
	if os.Getenv("PRIVATEFILE_HELPER") == "lock" {
		os.Exit(holdLock(os.Args[1], os.Args[2]))
	}
	os.Exit(m.Run())
}

// holdLock locks path, writes DIR/locked, and holds the lock until
// DIR/release appears.
func holdLock(path, dir string) int {
	f, err := Open(path, os.O_RDWR, 0)
	if err != nil || Lock(f) != nil {
		return 2
	}
	os.WriteFile(filepath.Join(dir, "locked"), nil, 0o600)
	for {
		if _, err := os.Stat(filepath.Join(dir, "release")); err == nil {
			return 0
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A file Open creates has a protected DACL with one entry: the user's.
func TestWindowsCreatedPrivate(t *testing.T) {
	path := filepath.Join(testdir.New(t), "state")
	f, err := Open(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := CheckPrivate(path, 0); err != nil {
		t.Fatalf("a file Open created is refused: %v", err)
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		t.Fatalf("no DACL: %v", err)
	}
	// Windows keeps the DACL given at creation: the user's entry alone.
	// Wine 8 derives a file's DACL from its Unix mode (0600 reads back as
	// SYSTEM and the user): what is checked here is that nobody else is in.
	sid, _ := me()
	t.Logf("DACL read back: %s", sd)
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			t.Fatal(err)
		}
		who := (*windows.SID)(unsafePointer(&ace.SidStart))
		if !who.Equals(sid) && !who.IsWellKnown(windows.WinLocalSystemSid) {
			t.Fatalf("the DACL of a new file grants %s (%s)", who, sd)
		}
	}
}

// A file whose DACL also lets Everyone in is refused, and named so.
func TestWindowsDACLGrantingOthersRefused(t *testing.T) {
	path := filepath.Join(testdir.New(t), "state")
	if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	sid, _ := me()
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;FA;;;" + sid.String() + ")(A;;FR;;;WD)")
	if err != nil {
		t.Fatal(err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		t.Fatal(err)
	}
	err = CheckPrivate(path, 0)
	r, ok := IsRefusal(err)
	if !ok || !r.Exposed || !(strings.Contains(r.Grantee, "Everyone") || strings.Contains(r.Grantee, "S-1-1-0")) {
		t.Fatalf("CheckPrivate = %v, want a refusal naming Everyone", err)
	}
	if want := "grants " + r.Grantee + " access (its DACL): not private"; !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("error %q, want it to end %q", err, want)
	}
}

// LockFileEx between two processes: while another process holds the
// lock, TryLock says ErrWouldBlock and the file still reads (the lock's
// byte lies past the data); once it lets go, Lock takes it.
func TestWindowsLockBetweenProcesses(t *testing.T) {
	dir := testdir.New(t)
	path := filepath.Join(dir, "state")
	if err := os.WriteFile(path, []byte("held"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(os.Args[0], path, dir)
	c.Env = append(os.Environ(), "PRIVATEFILE_HELPER=lock")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(dir, "locked")); err == nil {
			break
		}
		if i > 3000 {
			t.Fatal("the helper never locked the file")
		}
		time.Sleep(10 * time.Millisecond)
	}
	f, err := Open(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := TryLock(f); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("TryLock while another process holds the lock: %v, want ErrWouldBlock", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "held" {
		t.Fatalf("reading the locked file: %q, %v", b, err)
	}
	os.WriteFile(filepath.Join(dir, "release"), nil, 0o600)
	if err := c.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	if err := Lock(f); err != nil {
		t.Fatalf("Lock once released: %v", err)
	}
}

// Open refuses what is not a regular file: a directory.
func TestWindowsDirectoryRefused(t *testing.T) {
	_, err := Open(testdir.New(t), os.O_RDWR|os.O_CREATE, 0o600)
	if r, ok := IsRefusal(err); !ok || !r.Dir {
		t.Fatalf("Open of a directory: %v, want a refusal", err)
	}
}

func unsafePointer(p *uint32) unsafe.Pointer { return unsafe.Pointer(p) }
