// Package waiters is the catalog of waiter families that --waiter
// SERVICE:NAME, --list-waiters and the shell completion read: one
// interface, Family, and one registry, Builtin (the botocore models built
// into retry, then the Kubernetes waiters), beside which a model file of
// the user's (--waiter-file) is a family of its own. A new family is a
// package that builds waitermodel.Models and one entry in Builtin.
package waiters

import (
	"fmt"
	"strings"

	"github.com/retry-dev/retry/acceptor/botocore"
	"github.com/retry-dev/retry/acceptor/k8s"
	"github.com/retry-dev/retry/acceptor/waitermodel"
)

// A Family is a set of waiters under the services of --waiter SERVICE:NAME.
type Family interface {
	// Services lists the family's services, sorted.
	Services() ([]string, error)
	// Holds reports whether service, as the user spelt it, is one of the
	// family's.
	Holds(service string) bool
	// Names lists the waiters of service (one the family holds), without
	// reading their models.
	Names(service string) ([]Name, error)
	// Waiter returns the waiter of service called name (either of its
	// spellings). An unknown name is an error that says what is known.
	Waiter(service, name string) (*waitermodel.Model, error)
	// Count says how many waiters in how many services of the family
	// were listed, for the line --list-waiters writes on stderr: "4
	// waiters in 1 service".
	Count(waiters, services int) string
	// Origin says where the waiters come from, after Count: "built in from
	// botocore 1.43.11 (Apache-2.0)".
	Origin() string
}

// Name is a waiter's name as in its model (TableExists) and as its CLI
// spells it (table-exists), and its service as the family names it (s3
// for s3api; "" in a file).
type Name struct{ Service, Model, CLI string }

// Catalog is an ordered list of families: --list-waiters lists them in
// its order.
type Catalog []Family

// Builtin is the registry of the waiters built into retry.
var Builtin = Catalog{Botocore{}, Kubernetes{}}

// Family returns the family of c that holds service; when none does, the
// first family's error, which says how to list the services.
func (c Catalog) Family(service string) (Family, error) {
	for _, f := range c {
		if f.Holds(service) {
			return f, nil
		}
	}
	if _, err := c[0].Names(service); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no built-in waiters for service %q", service)
}

// Botocore is the family of the botocore waiter models built into retry
// (acceptor/botocore), one service each, named as botocore or the AWS CLI
// names them (dynamodb, s3api).
type Botocore struct{}

// Services lists botocore's services.
func (Botocore) Services() ([]string, error) {
	models, err := botocore.Models()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(models))
	for i, m := range models {
		out[i] = m.Service
	}
	return out, nil
}

// Holds reports whether service has a built-in model.
func (Botocore) Holds(service string) bool { return botocore.Has(service) }

// Names lists the waiters of service's model.
func (Botocore) Names(service string) ([]Name, error) {
	m, err := botocore.Lookup(service)
	if err != nil {
		return nil, err
	}
	out := make([]Name, len(m.Names))
	for i := range m.Names {
		out[i] = Name{m.Service, m.Names[i], m.CLINames[i]}
	}
	return out, nil
}

// Waiter parses service's model and returns its waiter called name.
func (Botocore) Waiter(service, name string) (*waitermodel.Model, error) {
	m, data, err := botocore.Service(service)
	if err != nil {
		return nil, err
	}
	if name, err = m.Resolve(name); err != nil {
		return nil, err
	}
	wf, err := waitermodel.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("built-in model of %s: %v", m.Service, err)
	}
	return wf.Model(name)
}

// Count is "N waiters in M services".
func (Botocore) Count(waiters, services int) string {
	return plural(waiters, "waiter") + " in " + plural(services, "service")
}

// Origin names botocore's version and licence.
func (Botocore) Origin() string {
	return "built in from botocore " + botocore.Version + " (Apache-2.0)"
}

// Kubernetes is the family of the built-in Kubernetes waiters
// (acceptor/k8s), under the one service k8s.
type Kubernetes struct{}

// Services is k8s.
func (Kubernetes) Services() ([]string, error) { return []string{k8s.Service}, nil }

// Holds reports whether service is k8s, in any case.
func (Kubernetes) Holds(service string) bool { return strings.EqualFold(service, k8s.Service) }

// Names lists the Kubernetes waiters.
func (Kubernetes) Names(string) ([]Name, error) {
	models, clis := k8s.Names()
	out := make([]Name, len(models))
	for i := range models {
		out[i] = Name{k8s.Service, models[i], clis[i]}
	}
	return out, nil
}

// Waiter returns the Kubernetes waiter called name.
func (Kubernetes) Waiter(_, name string) (*waitermodel.Model, error) { return k8s.Waiter(name) }

// Count is "N Kubernetes waiters (k8s:NAME, over kubectl get KIND NAME -o
// json)".
func (Kubernetes) Count(waiters, _ int) string {
	return fmt.Sprintf("%d Kubernetes waiters (%s:NAME, over kubectl get KIND NAME -o json)", waiters, k8s.Service)
}

// Origin is "built in".
func (Kubernetes) Origin() string { return "built in" }

// File is the family of a waiter model file (--waiter-file: botocore's
// waiters-2.json or a Smithy model), which holds every service: a
// SERVICE: prefix is ignored, the file overrides the built-in models.
type File struct{ File *waitermodel.File }

// Services is one service without a name.
func (File) Services() ([]string, error) { return []string{""}, nil }

// Holds holds every service.
func (File) Holds(string) bool { return true }

// Names lists the file's waiters, spelt as in the file.
func (f File) Names(string) ([]Name, error) {
	names := f.File.Names()
	out := make([]Name, len(names))
	for i, n := range names {
		out[i] = Name{"", n, n}
	}
	return out, nil
}

// Waiter returns the file's waiter called name.
func (f File) Waiter(_, name string) (*waitermodel.Model, error) { return f.File.Model(name) }

// Count is "N waiters".
func (File) Count(waiters, _ int) string { return plural(waiters, "waiter") }

// Origin is "in the file".
func (File) Origin() string { return "in --waiter-file" }

// plural is "1 waiter", "2 waiters".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
