//go:build linux

// Command storefloor is the floor of final mode for bench/final.sh: a Go
// program that reads its stdin (a pipe) to the end and then writes all of
// it to its stdout, as retry run --stdout final must, with nothing else of
// retry's. Its argument says where the stream is kept:
//
//	pass   nowhere: read 256 KiB at a time and written at once (live mode's floor)
//	file   an unlinked file in TMPDIR, moved in with splice(2) and out with
//	       sendfile(2) (what final mode does past its spill threshold)
//	memfd  the same in an anonymous memfd_create(2) file (tmpfs pages)
//
// The pipe is grown to 1 MiB first, as retry grows its stdout pipe.
package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) != 2 {
		fail(fmt.Errorf("usage: storefloor pass|file|memfd"))
	}
	_, _ = unix.FcntlInt(0, unix.F_SETPIPE_SZ, 1<<20)
	var err error
	switch os.Args[1] {
	case "pass":
		err = pass()
	case "file", "memfd":
		err = store(os.Args[1])
	default:
		err = fmt.Errorf("unknown mode %q (pass, file or memfd)", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "storefloor:", err)
	os.Exit(2)
}

func pass() error {
	buf := make([]byte, 256<<10)
	for {
		n, err := unix.Read(0, buf)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n == 0:
			return nil
		}
		for b := buf[:n]; len(b) > 0; {
			k, err := unix.Write(1, b)
			if err != nil && err != unix.EINTR {
				return err
			}
			b = b[max(k, 0):]
		}
	}
}

func store(mode string) error {
	var fd int
	if mode == "memfd" {
		var err error
		if fd, err = unix.MemfdCreate("storefloor", unix.MFD_CLOEXEC); err != nil {
			return err
		}
	} else {
		f, err := os.CreateTemp("", "storefloor-*")
		if err != nil {
			return err
		}
		if err := os.Remove(f.Name()); err != nil {
			return err
		}
		if fd, err = unix.Dup(int(f.Fd())); err != nil {
			return err
		}
		f.Close()
	}
	defer unix.Close(fd)
	var size int64
	for {
		n, err := unix.Splice(0, nil, fd, nil, 1<<20, 0)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n == 0:
			for off := int64(0); off < size; {
				k, err := unix.Sendfile(1, fd, &off, int(min(size-off, 1<<30)))
				switch {
				case err == unix.EINTR:
				case err != nil:
					return err
				case k == 0:
					return fmt.Errorf("the file ended at %d of %d bytes", off, size)
				}
			}
			return nil
		}
		size += int64(n) // an int on 32-bit systems
	}
}
