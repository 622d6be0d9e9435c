// Package botocore holds the waiter models of botocore (waiters-2.json),
// built into retry for --waiter SERVICE:NAME. The models are copied by `go
// generate` from the botocore package of the build environment (see
// internal/waitergen), minified and gzipped into one embedded archive of
// about 20 KB (150 KB of JSON). Nothing is decompressed until a built-in
// waiter is asked for: the package has no init work, and a run that names
// no built-in waiter pays nothing.
//
// The data is botocore's, under the Apache License 2.0: NOTICE and LICENSE
// in this directory.
package botocore

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed waiters.gz
var archive []byte

// alias returns botocore's name of a service the AWS CLI names differently
// (awscli's customizations rename these commands), or s. A switch, not a
// map: a map literal would be built at start-up by every run.
func alias(s string) string {
	switch s {
	case "s3api":
		return "s3"
	case "configservice":
		return "config"
	case "deploy":
		return "codedeploy"
	}
	return s
}

// Model is one service's waiter model in the archive.
type Model struct {
	// Service is botocore's name of the service (dynamodb, s3, elbv2).
	Service string
	// API is the API version the model belongs to (2012-08-10).
	API string
	// Names are the waiters' names as in the model (TableExists), sorted;
	// CLINames the AWS CLI's names of the same waiters (table-exists).
	Names, CLINames []string

	off, n int
}

type catalog struct {
	models []Model
	byName map[string]*Model
	body   []byte
}

var (
	once   sync.Once
	loaded *catalog
	errCat error
)

// load decompresses the archive, once.
func load() (*catalog, error) {
	once.Do(func() { loaded, errCat = parse(archive) })
	return loaded, errCat
}

func parse(gz []byte) (*catalog, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("built-in waiter models: %v", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("built-in waiter models: %v", err)
	}
	head, body, ok := bytes.Cut(raw, []byte("\n\n"))
	if !ok {
		return nil, fmt.Errorf("built-in waiter models: no index")
	}
	c := &catalog{body: body, byName: map[string]*Model{}}
	lines := strings.Split(string(head), "\n")
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != 5 {
			return nil, fmt.Errorf("built-in waiter models: bad index line %q", line)
		}
		m := Model{Service: f[0], API: f[1]}
		m.off, _ = strconv.Atoi(f[2])
		m.n, _ = strconv.Atoi(f[3])
		if m.off < 0 || m.n < 0 || m.off+m.n > len(body) {
			return nil, fmt.Errorf("built-in waiter models: %s out of range", m.Service)
		}
		for _, p := range strings.Split(f[4], ",") {
			name, cli, _ := strings.Cut(p, "=")
			m.Names = append(m.Names, name)
			m.CLINames = append(m.CLINames, cli)
		}
		c.models = append(c.models, m)
	}
	for i := range c.models {
		c.byName[c.models[i].Service] = &c.models[i]
	}
	return c, nil
}

// Models returns every service's model, sorted by service.
func Models() ([]Model, error) {
	c, err := load()
	if err != nil {
		return nil, err
	}
	return c.models, nil
}

// Service returns the model of service (botocore's name, or the AWS CLI's:
// s3api, configservice, deploy) and its waiters-2.json, minified. An
// unknown service is an error that says how to list them.
func Service(service string) (*Model, []byte, error) {
	c, err := load()
	if err != nil {
		return nil, nil, err
	}
	m := c.byName[alias(strings.ToLower(service))]
	if m == nil {
		return nil, nil, fmt.Errorf("no built-in waiters for service %q (retry wait --list-waiters lists the %d services)", service, len(c.models))
	}
	return m, c.body[m.off : m.off+m.n], nil
}

// Resolve returns the model's name of the waiter called name, given as in
// the model (TableExists) or as the AWS CLI spells it (table-exists). An
// unknown name is an error that lists the service's waiters.
func (m *Model) Resolve(name string) (string, error) {
	for i, n := range m.Names {
		if name == n || name == m.CLINames[i] {
			return n, nil
		}
	}
	list := make([]string, len(m.Names))
	for i, n := range m.Names {
		list[i] = m.CLINames[i] + " (" + n + ")"
	}
	sort.Strings(list)
	return "", fmt.Errorf("%s has no waiter %q; it has %s", m.Service, name, strings.Join(list, ", "))
}
