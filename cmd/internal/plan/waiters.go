package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/retry-dev/retry/acceptor/botocore"
	"github.com/retry-dev/retry/acceptor/k8s"
	"github.com/retry-dev/retry/acceptor/waitermodel"
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/human"
)

// loadWaiter loads the waiter of --waiter: from --waiter-file when given
// (a SERVICE: prefix is then ignored: the file overrides the built-in
// models), else from the botocore models built into retry, as
// SERVICE:NAME with NAME as in the model or the AWS CLI's kebab-case, or
// from the Kubernetes waiters, as k8s:NAME. nil without --waiter.
func (o *Options) loadWaiter() (*waitermodel.Model, error) {
	if o.Waiter.Name == "" && o.Waiter.File == "" {
		return nil, nil
	}
	if o.Waiter.Name == "" {
		return nil, exit.Usagef("--waiter-file: give --waiter NAME too, the name of a waiter in it (--list-waiters lists them)")
	}
	var (
		wf   *waitermodel.File
		name = o.Waiter.Name
		err  error
	)
	if o.Waiter.File != "" {
		if wf, err = LoadWaiterFile(o.Waiter.File); err != nil {
			return nil, exit.Usagef("--waiter-file: %v", err)
		}
		if _, n, ok := strings.Cut(name, ":"); ok {
			name = n
		}
	} else {
		service, n, ok := strings.Cut(name, ":")
		if !ok || service == "" || n == "" {
			return nil, exit.Usagef("--waiter: %q: want SERVICE:NAME for a built-in waiter (dynamodb:table-exists, k8s:pod-ready; retry wait --list-waiters lists them), or --waiter-file FILE with --waiter NAME", o.Waiter.Name)
		}
		if strings.EqualFold(service, k8s.Service) {
			w, err := k8s.Waiter(n)
			if err != nil {
				return nil, exit.Usagef("--waiter: %v", err)
			}
			return w, nil
		}
		m, data, err := botocore.Service(service)
		if err != nil {
			return nil, exit.Usagef("--waiter: %v", err)
		}
		if name, err = m.Resolve(n); err != nil {
			return nil, exit.Usagef("--waiter: %v", err)
		}
		if wf, err = waitermodel.Parse(data); err != nil {
			return nil, exit.Usagef("--waiter: built-in model of %s: %v", m.Service, err)
		}
	}
	w, err := wf.Model(name)
	if err != nil {
		return nil, exit.Usagef("--waiter: %v", err)
	}
	if w.UsesInput && o.Accept.Input == "" && !o.Output.Quiet {
		fmt.Fprintf(o.IO.ErrOut, "retry: warning: waiter %s compares input with output: give the operation's input with --input JSON|@FILE\n", w.Name)
	}
	return w, nil
}

// ListWaiters writes the names of the waiters of --waiter-file, one a line;
// without a file, the built-in waiters as SERVICE:NAME, the botocore ones
// then the Kubernetes ones (only SERVICE's with --waiter SERVICE), and a
// line on stderr saying where they come from.
func ListWaiters(o *Options) error {
	if o.Waiter.File != "" {
		wf, err := LoadWaiterFile(o.Waiter.File)
		if err != nil {
			return exit.Usagef("--waiter-file: %v", err)
		}
		for _, n := range wf.Names() {
			fmt.Fprintln(o.IO.Out, n)
		}
		return nil
	}
	kubeNames, kubeCLINames := k8s.Names()
	var kube strings.Builder
	for i, name := range kubeNames {
		fmt.Fprintf(&kube, "%s:%s\t%s:%s\n", k8s.Service, name, k8s.Service, kubeCLINames[i])
	}
	kubeLine := fmt.Sprintf("%d Kubernetes waiters (k8s:NAME, over kubectl get KIND NAME -o json)", len(kubeNames))
	if strings.EqualFold(strings.TrimSuffix(o.Waiter.Name, ":"), k8s.Service) {
		if _, err := fmt.Fprint(o.IO.Out, kube.String()); err != nil {
			return err
		}
		if !o.Output.Quiet {
			fmt.Fprintf(o.IO.ErrOut, "retry: %s, built in; --waiter-file FILE uses another model\n", kubeLine)
		}
		return nil
	}
	models, err := botocore.Models()
	if err != nil {
		return err
	}
	if o.Waiter.Name != "" {
		m, _, err := botocore.Service(strings.TrimSuffix(o.Waiter.Name, ":"))
		if err != nil {
			return exit.Usagef("--waiter: %v", err)
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
	if o.Waiter.Name == "" {
		b.WriteString(kube.String())
	}
	if _, err := fmt.Fprint(o.IO.Out, b.String()); err != nil {
		return err
	}
	if !o.Output.Quiet {
		also := ""
		if o.Waiter.Name == "" {
			also = ", and " + kubeLine
		}
		fmt.Fprintf(o.IO.ErrOut, "retry: %s in %s, built in from botocore %s (Apache-2.0)%s; --waiter-file FILE uses another model\n", human.Plural(n, "waiter"), human.Plural(len(models), "service"), botocore.Version, also)
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
