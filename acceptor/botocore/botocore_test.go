package botocore

import (
	"testing"
)

func TestResolveSpellings(t *testing.T) {
	m, _, err := Service("dynamodb")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"TableExists", "table-exists"} {
		if got, err := m.Resolve(name); err != nil || got != "TableExists" {
			t.Errorf("Resolve(%q) = %q, %v", name, got, err)
		}
	}
	if _, err := m.Resolve("tableexists"); err == nil {
		t.Error("Resolve(tableexists): want an error")
	}
	for alias, service := range map[string]string{"s3api": "s3", "S3": "s3", "deploy": "codedeploy"} {
		if m, _, err := Service(alias); err != nil || m.Service != service {
			t.Errorf("Service(%q) = %v, %v; want %s", alias, m, err, service)
		}
	}
	if _, _, err := Service("nosuch"); err == nil {
		t.Error("Service(nosuch): want an error")
	}
	m, _, _ = Service("ec2")
	if got, _ := m.Resolve("instance-status-ok"); got != "InstanceStatusOk" {
		t.Errorf("ec2 instance-status-ok = %q", got)
	}
	m, _, _ = Service("rds")
	if got, _ := m.Resolve("db-instance-available"); got != "DBInstanceAvailable" {
		t.Errorf("rds db-instance-available = %q", got)
	}
}

// BenchmarkService is what naming a built-in waiter costs once per run:
// finding the service in the index and inflating its model.
func BenchmarkService(b *testing.B) {
	for b.Loop() {
		if _, _, err := Service("dynamodb"); err != nil {
			b.Fatal(err)
		}
	}
}

// The index lookup finds exactly the line Models parses, for every service.
func TestLookupAgreesWithModels(t *testing.T) {
	models, err := Models()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range models {
		got, err := lookup(index, m.Service, len(archive))
		if err != nil || got == nil || got.Service != m.Service || got.off != m.off || len(got.Names) != len(m.Names) {
			t.Errorf("lookup(%s) = %+v, %v; want %+v", m.Service, got, err, m)
		}
	}
	for _, s := range []string{"", "acm-p", "x y", "dynamodb\n"} {
		if got, err := lookup(index, s, len(archive)); got != nil || err != nil {
			t.Errorf("lookup(%q) = %v, %v; want nothing", s, got, err)
		}
	}
}
