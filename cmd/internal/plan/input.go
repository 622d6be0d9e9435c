package plan

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/retry-dev/retry/runner/output"
)

// maxInputFile bounds what retry reads from a file given to a flag:
// --input @FILE and --data @FILE (or stdin for @-), and --waiter-file
// (loadWaiterFile): 64 MiB, well above the largest botocore model (EC2's is
// under 100 KB). A model or a request body beyond that is a mistake (or
// /dev/zero), not an input.
const maxInputFile = 64 << 20

// openRegular opens name for reading, refusing what is not a regular file
// (a FIFO would block, a device may never end) with an error that names
// the file, says what it is and ends with "; want " and want. It returns
// the file's size.
func openRegular(name, want string) (*os.File, int64, error) {
	// O_NONBLOCK: opening a FIFO with no writer must not block; the file
	// is refused right after anyway.
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s: not a regular file (%s); want %s", name, fileKind(fi.Mode()), want)
	}
	// O_NONBLOCK was for the open (a FIFO must not hang it); a regular
	// file reads the same with it, so clearing it may fail harmlessly.
	setBlocking(f)
	return f, fi.Size(), nil
}

// readInputFile reads name for flag, refusing what is not a regular file
// and what is larger than maxInputFile; "-" is stdin, read up to the same
// bound. Errors name the file and say what is accepted; the caller
// prefixes the flag.
func readInputFile(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		if stdin == nil {
			return nil, errors.New("stdin: nothing to read")
		}
		r = stdin
	} else {
		want := "a file of at most " + output.FormatSize(maxInputFile)
		f, size, err := openRegular(name, want)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if size > maxInputFile {
			return nil, fmt.Errorf("%s: %s; want %s", name, output.FormatSize(size), want)
		}
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInputFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxInputFile {
		what := name
		if name == "-" {
			what = "stdin"
		}
		return nil, fmt.Errorf("%s: more than %s; want at most %s", what, output.FormatSize(maxInputFile), output.FormatSize(maxInputFile))
	}
	return b, nil
}

// fileKind says what a file that is not regular is, for openRegular's
// error.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// sizeValue is a flag holding a size in bytes: 1048576, 512K, 10M, 1.5GiB
// (K, M, G, T with or without "iB"; all binary, as `head -c` counts).
type sizeValue struct{ p *int64 }

func (v sizeValue) String() string {
	if *v.p == 0 {
		return ""
	}
	return output.FormatSize(*v.p)
}
func (v sizeValue) Type() string { return "SIZE" }
func (v sizeValue) Set(s string) error {
	n, err := ParseSize(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

// ParseSize parses a size in bytes: a number ≥ 0 (a fraction is allowed
// with a unit), then an optional unit B, K, M, G, T, KB…TB or KiB…TiB (any
// case, all powers of 1024). It refuses negative, non-finite and overflowing
// sizes.
//
// Written here rather than taken from github.com/docker/go-units: its
// RAMInBytes reads the same binary units, but it is a module for forty
// lines, and --max-output's refusal must say what the flag accepts.
func ParseSize(s string) (int64, error) {
	bad := errors.New("want a size like 1048576, 512K, 10M or 1GiB")
	tooLarge := errors.New("too large: the most is 8EiB (2^63-1 bytes)")
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	if num == "" || strings.Count(num, ".") > 1 || num == "." {
		return 0, bad
	}
	shift := 0
	switch unit {
	case "", "b":
	case "k", "kb", "kib":
		shift = 10
	case "m", "mb", "mib":
		shift = 20
	case "g", "gb", "gib":
		shift = 30
	case "t", "tb", "tib":
		shift = 40
	default:
		return 0, bad
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if errors.Is(err, strconv.ErrRange) || err == nil && shift > 0 && n > math.MaxInt64>>shift {
			return 0, tooLarge
		}
		if err != nil {
			return 0, bad
		}
		return n << shift, nil
	}
	if shift == 0 {
		return 0, bad // a fraction of a byte
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, bad
	}
	f *= float64(int64(1) << shift)
	if math.IsInf(f, 0) || math.IsNaN(f) || f >= math.MaxInt64 {
		return 0, tooLarge
	}
	return int64(f), nil
}

// loadArg resolves a value given as DATA, @FILE or @- (stdin), for --data
// and --input: FILE must be a regular file of at most 64 MiB, and stdin is
// read up to the same bound.
func loadArg(arg string, stdin io.Reader) ([]byte, error) {
	name, ok := strings.CutPrefix(arg, "@")
	if !ok {
		return []byte(arg), nil
	}
	if name == "" {
		return nil, errors.New("@ needs a file name: @FILE, or @- for stdin")
	}
	if name == "-" && stdin == nil {
		return nil, errors.New("no stdin to read @- from")
	}
	return readInputFile(name, stdin)
}

// envKey is the variable of the flag name's default: RETRY_MAX_TIME for
// max-time (flag names are lowercase ASCII). One allocation, where
// ReplaceAll, ToUpper and a concatenation make three: ApplyEnv asks for
// ~80 of them at every start.
func envKey(name string) string {
	var buf [64]byte
	b := append(buf[:0], "RETRY_"...)
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-':
			c = '_'
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}
