package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/windows"
)

// The helper programs and script commands of the Windows scripts
// (testdata/script/windows_*.txtar).

// exitwithMain is `exitwith CODE`: it exits with the 32-bit exit code CODE
// (3221225477 is 0xC0000005, an access violation's NTSTATUS).
func exitwithMain() {
	code, err := strconv.ParseUint(os.Args[1], 10, 32)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(int(code))
}

// argvMain prints each argument it was given, quoted, one a line: a shell
// named by --shell-path shows how retry passed it the script.
func argvMain() {
	for i, a := range os.Args[1:] {
		fmt.Printf("argv[%d] %q\n", i+1, a)
	}
}

// trapbreakMain is `trapbreak DIR`: it writes DIR/ready, waits for a
// console's Ctrl-Break (Go's os.Interrupt), writes DIR/got and exits 3.
func trapbreakMain() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	os.WriteFile(filepath.Join(os.Args[1], "ready"), nil, 0o600)
	<-ch
	os.WriteFile(filepath.Join(os.Args[1], "got"), []byte("break\n"), 0o600)
	os.Exit(3)
}

// cmdTerminate is `terminate NAME`: it ends the process started as NAME
// with TerminateProcess, through the handle start holds (no cleanup runs
// in it, as with taskkill /F or a crash).
func cmdTerminate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: terminate NAME")
	}
	p := startedProc(ts, args[0])
	ts.Check(p.cmd.Process.Kill())
}

// cmdCtrlBreak is `ctrlbreak NAME PROG ARGS...` to start PROG in a process
// group of its own as NAME (waitexit collects it), then `ctrlbreak NAME`
// to send that group CTRL_BREAK_EVENT, as a console's Ctrl-Break does.
func cmdCtrlBreak(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: ctrlbreak NAME [PROG ARGS...]")
	}
	if len(args) > 1 {
		c := scriptCommand(ts, args[1:])
		c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
		startBackground(ts, args[0], c)
		return
	}
	p := startedProc(ts, args[0])
	ts.Check(windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.cmd.Process.Pid)))
}

// cmdGrant is `grant FILE`: it gives FILE a protected DACL that grants the
// user full access and Everyone read access: a file others may read.
func cmdGrant(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: grant FILE")
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	ts.Check(err)
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;FA;;;" + user.User.Sid.String() + ")(A;;FR;;;WD)")
	ts.Check(err)
	dacl, _, err := sd.DACL()
	ts.Check(err)
	ts.Check(windows.SetNamedSecurityInfo(ts.MkAbs(args[0]), windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil))
}

// cmdGrantees is `grantees FILE`: it prints, sorted, one a line, whom
// FILE's DACL allows in: "user" for the user running the test, else the
// account's name (or its SID).
func cmdGrantees(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: grantees FILE")
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	ts.Check(err)
	sd, err := windows.GetNamedSecurityInfo(ts.MkAbs(args[0]), windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	ts.Check(err)
	dacl, _, err := sd.DACL()
	ts.Check(err)
	if dacl == nil {
		fmt.Fprintln(ts.Stdout(), "everyone (a null DACL)")
		return
	}
	var names []string
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		ts.Check(windows.GetAce(dacl, i, &ace))
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		name := sid.String()
		if sid.Equals(user.User.Sid) {
			name = "user"
		} else if account, _, _, err := sid.LookupAccount(""); err == nil {
			name = account
		}
		names = append(names, name)
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		fmt.Fprintln(ts.Stdout(), n)
	}
}

// cmdQuote is `quote FILE`: it prints FILE's content as a Go string
// literal, so that a script can match CR and LF byte for byte.
func cmdQuote(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: quote FILE")
	}
	fmt.Fprintln(ts.Stdout(), strconv.Quote(ts.ReadFile(args[0])))
}
