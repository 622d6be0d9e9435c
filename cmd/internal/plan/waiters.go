package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/retry-dev/retry/acceptor/waitermodel"
	"github.com/retry-dev/retry/acceptor/waiters"
	"github.com/retry-dev/retry/cmd/internal/echo"
	"github.com/retry-dev/retry/cmd/internal/exit"
)

// loadWaiter loads the waiter of --waiter from the catalog
// (acceptor/waiters): from --waiter-file's family when given (a SERVICE:
// prefix is then ignored: the file overrides the built-in models), else
// from the built-in family that holds SERVICE of SERVICE:NAME (botocore's
// models, with NAME as in the model or the AWS CLI's kebab-case; k8s:NAME).
// nil without --waiter.
func (o *Options) loadWaiter() (*waitermodel.Model, error) {
	if o.Waiter.Name == "" && o.Waiter.File == "" {
		return nil, nil
	}
	if o.Waiter.Name == "" {
		return nil, exit.Usagef("--waiter-file: give --waiter NAME too, the name of a waiter in it (--list-waiters lists them)")
	}
	var (
		family        waiters.Family
		service, name = "", o.Waiter.Name
	)
	if o.Waiter.File != "" {
		wf, err := LoadWaiterFile(o.Waiter.File)
		if err != nil {
			return nil, exit.Usagef("--waiter-file: %v", err)
		}
		family = waiters.File{File: wf}
		if _, n, ok := strings.Cut(name, ":"); ok {
			name = n
		}
	} else {
		s, n, ok := strings.Cut(name, ":")
		if !ok || s == "" || n == "" {
			return nil, exit.Usagef("--waiter: %q: want SERVICE:NAME for a built-in waiter (dynamodb:table-exists, k8s:pod-ready; retry wait --list-waiters lists them), or --waiter-file FILE with --waiter NAME", o.Waiter.Name)
		}
		f, err := waiters.Builtin.Family(s)
		if err != nil {
			return nil, exit.Usagef("--waiter: %v", err)
		}
		family, service, name = f, s, n
	}
	w, err := family.Waiter(service, name)
	if err != nil {
		return nil, exit.Usagef("--waiter: %v", err)
	}
	if w.UsesInput && o.Accept.Input == "" && !o.Output.Quiet {
		fmt.Fprint(o.IO.ErrOut, echo.Sprintf("retry: warning: waiter %s compares input with output: give the operation's input with --input JSON|@FILE\n", w.Name))
	}
	return w, nil
}

// listWaiters writes the waiters of the catalog, one a line: those of
// --waiter-file by name; without a file the built-in ones as
// SERVICE:Name and SERVICE:cli-name, family by family (only SERVICE's with
// --waiter SERVICE), and a line on stderr saying how many and where they
// come from.
func listWaiters(o *Options) error {
	if o.Waiter.File != "" {
		wf, err := LoadWaiterFile(o.Waiter.File)
		if err != nil {
			return exit.Usagef("--waiter-file: %v", err)
		}
		names, _ := waiters.File{File: wf}.Names("")
		for _, n := range names {
			fmt.Fprintln(o.IO.Out, echo.Raw(n.Model)) // the listing: names of the user's model file
		}
		return nil
	}
	type listed struct {
		family            waiters.Family
		waiters, services int
	}
	var lists []listed
	var b strings.Builder
	list := func(f waiters.Family, services []string) error {
		l := listed{family: f, services: len(services)}
		for _, s := range services {
			names, err := f.Names(s)
			if err != nil {
				return err
			}
			for _, n := range names {
				fmt.Fprintf(&b, "%s:%s\t%s:%s\n", n.Service, n.Model, n.Service, n.CLI)
			}
			l.waiters += len(names)
		}
		lists = append(lists, l)
		return nil
	}
	if service := strings.TrimSuffix(o.Waiter.Name, ":"); service != "" {
		f, err := waiters.Builtin.Family(service)
		if err != nil {
			return exit.Usagef("--waiter: %v", err)
		}
		if err := list(f, []string{service}); err != nil {
			return exit.Usagef("--waiter: %v", err)
		}
	} else {
		for _, f := range waiters.Builtin {
			services, err := f.Services()
			if err != nil {
				return err
			}
			if err := list(f, services); err != nil {
				return err
			}
		}
	}
	if _, err := fmt.Fprint(o.IO.Out, echo.Raw(b.String())); err != nil { // the listing: names of the built-in models
		return err
	}
	if !o.Output.Quiet {
		// The first family says where its waiters come from; the others
		// follow it.
		line := lists[0].family.Count(lists[0].waiters, lists[0].services) + ", " + lists[0].family.Origin()
		for _, l := range lists[1:] {
			line += ", and " + l.family.Count(l.waiters, l.services)
		}
		fmt.Fprint(o.IO.ErrOut, echo.Sprintf("retry: %s; --waiter-file FILE uses another model\n", line))
	}
	return nil
}

// LoadWaiterFile reads and parses the waiter model file of --waiter-file
// (waitermodel.Parse). It refuses what is not a regular file and a file
// larger than maxInputFile; errors name the file. Its messages are not
// readInputFile's: a size in bytes, "a waiter model file" (scripts assert
// both), and no stdin.
func LoadWaiterFile(name string) (*waitermodel.File, error) {
	const want = "a waiter model file of at most 64 MiB"
	f, size, err := openRegular(name, want)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > maxInputFile {
		return nil, fmt.Errorf("%s: %d bytes; want %s", name, size, want)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxInputFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxInputFile {
		return nil, fmt.Errorf("%s: more than 64 MiB; want %s", name, want)
	}
	wf, err := waitermodel.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return wf, nil
}
