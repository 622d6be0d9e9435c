//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands that stand in for host tools (wc -l, sed | uniq -c,
// stat -c, ls, mkfifo, truncate, sh -c), so scripts need nothing from the
// machine but the programs they test. The ones that print write to the
// script's stdout, for stdout assertions (and leave stderr empty).
func init() {
	scriptCommands["lines"] = cmdLines
	scriptCommands["listdir"] = cmdListDir
	scriptCommands["filesize"] = cmdFileSize
	scriptCommands["maxsize"] = cmdMaxSize
	scriptCommands["filemode"] = cmdFileMode
	scriptCommands["mkfifo"] = cmdMkfifo
	scriptCommands["sparse"] = cmdSparse
	scriptCommands["uniqmatch"] = cmdUniqMatch
	scriptCommands["envsubst"] = cmdEnvSubst
	scriptCommands["combined"] = cmdCombined
}

// cmdLines is `lines FILE N`: FILE holds exactly N lines (with `!`, not N).
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: lines FILE N")
	}
	got := strings.Count(ts.ReadFile(args[0]), "\n")
	if (strconv.Itoa(got) == args[1]) == neg {
		ts.Fatalf("%s has %d lines, want %s%s", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}

// cmdListDir is `listdir [DIR]`: the names in DIR (the work directory by
// default), sorted, one a line, like ls.
func cmdListDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: listdir [DIR]")
	}
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	entries, err := os.ReadDir(ts.MkAbs(dir))
	ts.Check(err)
	out := ts.Stdout() // even for no entries: stdout and stderr become this command's
	for _, e := range entries {
		fmt.Fprintln(out, e.Name())
	}
}

// cmdFileSize is `filesize FILE...`: each file's size in bytes, one a line,
// like stat -c %s.
func cmdFileSize(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: filesize FILE...")
	}
	for _, f := range args {
		fi, err := os.Stat(ts.MkAbs(f))
		ts.Check(err)
		fmt.Fprintln(ts.Stdout(), fi.Size())
	}
}

// cmdMaxSize is `maxsize FILE N`: FILE holds at most N bytes (with `!`,
// more than N).
func cmdMaxSize(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: maxsize FILE N")
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	fi, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	if (fi.Size() <= n) == neg {
		ts.Fatalf("%s holds %d bytes, want %s %d", args[0], fi.Size(), map[bool]string{true: "more than", false: "at most"}[neg], n)
	}
}

// cmdFileMode is `filemode FILE...`: each file's permission bits in octal,
// one a line, like stat -c %a.
func cmdFileMode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: filemode FILE...")
	}
	for _, f := range args {
		fi, err := os.Stat(ts.MkAbs(f))
		ts.Check(err)
		fmt.Fprintf(ts.Stdout(), "%o\n", fi.Mode().Perm())
	}
}

// cmdMkfifo is `mkfifo PATH`: a named pipe, mode 0644.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
}

// cmdSparse is `sparse SIZE FILE`: FILE created (or cut) to SIZE bytes
// without writing them, like truncate -s; SIZE takes a K, M or G suffix
// (powers of 1024).
func cmdSparse(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sparse SIZE FILE")
	}
	num, mult := args[0], int64(1)
	if i := strings.IndexAny(num, "KMG"); i == len(num)-1 && i > 0 {
		mult = map[byte]int64{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}[num[i]]
		num = num[:i]
	}
	n, err := strconv.ParseInt(num, 10, 64)
	ts.Check(err)
	f, err := os.OpenFile(ts.MkAbs(args[1]), os.O_CREATE|os.O_WRONLY, 0o644)
	ts.Check(err)
	ts.Check(f.Truncate(n * mult))
	ts.Check(f.Close())
}

// cmdUniqMatch is `uniqmatch REGEXP FILE`: for each distinct first submatch
// of REGEXP in FILE's lines, in order of first appearance, "COUNT VALUE",
// like sed -n 's/…/\1/p' FILE | uniq -c on grouped values.
func cmdUniqMatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: uniqmatch REGEXP FILE")
	}
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	if re.NumSubexp() < 1 {
		ts.Fatalf("uniqmatch: %s has no group", args[0])
	}
	out := ts.Stdout() // even for no match: stdout and stderr become this command's
	var order []string
	counts := map[string]int{}
	for _, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			if counts[m[1]] == 0 {
				order = append(order, m[1])
			}
			counts[m[1]]++
		}
	}
	for _, v := range order {
		fmt.Fprintf(out, "%d %s\n", counts[v], v)
	}
}

// cmdEnvSubst is `envsubst SRC DST`: DST is SRC with $NAME and ${NAME}
// replaced by the script's environment.
func cmdEnvSubst(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envsubst SRC DST")
	}
	out := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
}

// cmdCombined is `combined PROG [ARGS...]`: runs PROG with stdout and stderr
// on one pipe, as `PROG 2>&1` does in a CI log, and writes what came out
// followed by "status N" to the script's stdout.
func cmdCombined(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: combined PROG [ARGS...]")
	}
	c := scriptCommand(ts, args)
	// One pipe for both, so the child's writes keep their order.
	r, w, err := os.Pipe()
	ts.Check(err)
	c.Stdout, c.Stderr = w, w
	if err := c.Start(); err != nil {
		w.Close()
		r.Close()
		ts.Fatalf("%v", err)
	}
	w.Close()
	var out bytes.Buffer
	_, rerr := out.ReadFrom(r)
	r.Close()
	ts.Check(rerr)
	err = c.Wait()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%v", err)
	}
	fmt.Fprintf(ts.Stdout(), "%sstatus %d\n", out.Bytes(), code)
}
