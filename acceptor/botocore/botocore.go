// Package botocore holds the waiter models of botocore (waiters-2.json),
// built into retry for --waiter SERVICE:NAME. The models are copied by `go
// generate` from the botocore package of the build environment (see
// internal/waitergen), minified, each service's deflated on its own: 24 KB
// embedded for 149 KB of JSON, and a plain-text index of the services and
// their waiters. Nothing is read until a built-in waiter is named or
// listed: the package has no init work, and a run that names no built-in
// waiter pays nothing. Naming one reads the index and inflates one
// service's model (tens of microseconds).
//
// The data is botocore's, under the Apache License 2.0: NOTICE and LICENSE
// in this directory.
package botocore

import (
	"bytes"
	"compress/flate"
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed waiters.bin
var archive []byte

//go:embed index.txt
var index string

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

	off, n, size int
}

type catalog struct {
	models []Model
	byName map[string]*Model
}

var (
	once   sync.Once
	loaded *catalog
	errCat error
)

// load reads the index, once.
func load() (*catalog, error) {
	once.Do(func() { loaded, errCat = parseIndex(index, len(archive)) })
	return loaded, errCat
}

func parseIndex(idx string, archiveLen int) (*catalog, error) {
	c := &catalog{byName: map[string]*Model{}}
	lines := strings.Split(strings.TrimSuffix(idx, "\n"), "\n")
	for _, line := range lines[1:] {
		m, err := parseLine(line, archiveLen)
		if err != nil {
			return nil, err
		}
		c.models = append(c.models, *m)
	}
	for i := range c.models {
		c.byName[c.models[i].Service] = &c.models[i]
	}
	return c, nil
}

// parseLine parses one service's line of the index.
func parseLine(line string, archiveLen int) (*Model, error) {
	f := strings.Fields(line)
	if len(f) != 6 {
		return nil, fmt.Errorf("built-in waiter models: bad index line %q", line)
	}
	m := &Model{Service: f[0], API: f[1]}
	var err error
	for i, p := range []*int{&m.off, &m.n, &m.size} {
		if *p, err = strconv.Atoi(f[2+i]); err != nil || *p < 0 {
			return nil, fmt.Errorf("built-in waiter models: bad index line %q", line)
		}
	}
	if m.off+m.n > archiveLen {
		return nil, fmt.Errorf("built-in waiter models: %s out of range", m.Service)
	}
	for _, p := range strings.Split(f[5], ",") {
		name, cli, _ := strings.Cut(p, "=")
		m.Names = append(m.Names, name)
		m.CLINames = append(m.CLINames, cli)
	}
	return m, nil
}

// lookup finds service's line in the index without parsing the others.
func lookup(idx, service string, archiveLen int) (*Model, error) {
	i := strings.Index(idx, "\n"+service+" ")
	if i < 0 || service == "" || strings.ContainsAny(service, " \n") {
		return nil, nil
	}
	line := idx[i+1:]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	return parseLine(line, archiveLen)
}

// Models returns every service's model, sorted by service.
func Models() ([]Model, error) {
	c, err := load()
	if err != nil {
		return nil, err
	}
	return c.models, nil
}

// Has reports whether service (any case, or an AWS CLI alias: s3api) has
// built-in waiter models, without reading them.
func Has(service string) bool {
	m, err := lookup(index, alias(strings.ToLower(service)), len(archive))
	return err == nil && m != nil
}

// Lookup returns the model of service (as Service spells it) without
// reading its waiters: its names. An unknown service is an error that
// says how to list them.
func Lookup(service string) (*Model, error) {
	m, err := lookup(index, alias(strings.ToLower(service)), len(archive))
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("no built-in waiters for service %q (retry wait --list-waiters lists the %d services)", service, Services)
	}
	return m, nil
}

// Service returns the model of service (botocore's name, or the AWS CLI's:
// s3api, configservice, deploy) and its waiters-2.json, minified. An
// unknown service is an error that says how to list them.
func Service(service string) (*Model, []byte, error) {
	m, err := Lookup(service)
	if err != nil {
		return nil, nil, err
	}
	data, err := m.inflate(archive)
	if err != nil {
		return nil, nil, err
	}
	return m, data, nil
}

// inflate returns the model's JSON from the archive.
func (m *Model) inflate(archive []byte) ([]byte, error) {
	zr := flate.NewReader(bytes.NewReader(archive[m.off : m.off+m.n]))
	defer zr.Close()
	data := make([]byte, 0, m.size)
	data, err := readAll(zr, data)
	if err != nil || len(data) != m.size {
		return nil, fmt.Errorf("built-in waiter model of %s: %d of %d bytes: %v", m.Service, len(data), m.size, err)
	}
	return data, nil
}

func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
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
