package cmd

import (
	"fmt"
	"strings"

	"github.com/retry-dev/retry/acceptor"
	"github.com/retry-dev/retry/acceptor/botocore"
)

// loadWaiter loads the waiter of --waiter: from --waiter-file when given
// (a SERVICE: prefix is then ignored: the file overrides the built-in
// models), else from the botocore models built into retry, as
// SERVICE:NAME with NAME as in the model or the AWS CLI's kebab-case. nil
// without --waiter.
func (o *Options) loadWaiter() (*acceptor.Waiter, error) {
	if o.Waiter == "" && o.WaiterFile == "" {
		return nil, nil
	}
	if o.Waiter == "" {
		return nil, usageError("--waiter-file: give --waiter NAME too, the name of a waiter in it (--list-waiters lists them)")
	}
	var (
		wf   *acceptor.WaiterFile
		name = o.Waiter
		err  error
	)
	if o.WaiterFile != "" {
		if wf, err = acceptor.LoadWaiters(o.WaiterFile); err != nil {
			return nil, usageError("--waiter-file: %v", err)
		}
		if _, n, ok := strings.Cut(name, ":"); ok {
			name = n
		}
	} else {
		service, n, ok := strings.Cut(name, ":")
		if !ok || service == "" || n == "" {
			return nil, usageError("--waiter: %q: want SERVICE:NAME for a built-in waiter (dynamodb:table-exists; retry wait --list-waiters lists them), or --waiter-file FILE with --waiter NAME", o.Waiter)
		}
		m, data, err := botocore.Service(service)
		if err != nil {
			return nil, usageError("--waiter: %v", err)
		}
		if name, err = m.Resolve(n); err != nil {
			return nil, usageError("--waiter: %v", err)
		}
		if wf, err = acceptor.ParseWaiters(data); err != nil {
			return nil, usageError("--waiter: built-in model of %s: %v", m.Service, err)
		}
	}
	w, err := wf.Waiter(name)
	if err != nil {
		return nil, usageError("--waiter: %v", err)
	}
	if w.UsesInput && o.Input == "" && !o.Quiet {
		fmt.Fprintf(o.IO.ErrOut, "retry: warning: waiter %s compares input with output: give the operation's input with --input JSON|@FILE\n", w.Name)
	}
	return w, nil
}

// listWaiters writes the names of the waiters of --waiter-file, one a line;
// without a file, the built-in waiters as SERVICE:NAME (only SERVICE's with
// --waiter SERVICE), and a line on stderr saying which botocore they come
// from.
func listWaiters(o *Options) error {
	if o.WaiterFile != "" {
		wf, err := acceptor.LoadWaiters(o.WaiterFile)
		if err != nil {
			return usageError("--waiter-file: %v", err)
		}
		for _, n := range wf.Names() {
			fmt.Fprintln(o.IO.Out, n)
		}
		return nil
	}
	models, err := botocore.Models()
	if err != nil {
		return err
	}
	if o.Waiter != "" {
		m, _, err := botocore.Service(strings.TrimSuffix(o.Waiter, ":"))
		if err != nil {
			return usageError("--waiter: %v", err)
		}
		models = []botocore.Model{*m}
	}
	var b strings.Builder
	n := 0
	for _, m := range models {
		for i, name := range m.Names {
			fmt.Fprintf(&b, "%s:%s\t%s:%s\n", m.Service, name, m.Service, m.CLINames[i])
			n++
		}
	}
	if _, err := fmt.Fprint(o.IO.Out, b.String()); err != nil {
		return err
	}
	if !o.Quiet {
		fmt.Fprintf(o.IO.ErrOut, "retry: %s in %s, built in from botocore %s (Apache-2.0); --waiter-file FILE uses another model\n", plural(n, "waiter"), plural(len(models), "service"), botocore.Version)
	}
	return nil
}
