package redis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The password comes from the URL, else the file, else RETRY_REDIS_PASSWORD,
// else REDISCLI_AUTH; errors name the variable and never hold a password.
func TestConfigurePassword(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	if err := os.WriteFile(file, []byte("fr0m-file\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url  string
		env  map[string]string
		want string
	}{
		{"redis://h", nil, ""},
		{"redis://u:in-url@h", map[string]string{EnvPassword: "env"}, "in-url"},
		{"redis://u@h", map[string]string{EnvPasswordFile: file}, "fr0m-file"},
		{"redis://h", map[string]string{EnvPassword: "env", EnvCLIAuth: "cli"}, "env"},
		{"redis://h", map[string]string{EnvCLIAuth: "cli"}, "cli"},
	} {
		u, err := ParseURL(c.url)
		if err != nil {
			t.Fatal(err)
		}
		if err := u.Configure(func(k string) string { return c.env[k] }); err != nil {
			t.Errorf("%s %v: %v", c.url, c.env, err)
		} else if u.password != c.want {
			t.Errorf("%s %v: password %q, want %q", c.url, c.env, u.password, c.want)
		}
		if u.PasswordInURL() != strings.Contains(c.url, ":in-url@") {
			t.Errorf("%s: PasswordInURL %v", c.url, u.PasswordInURL())
		}
	}
	empty := filepath.Join(dir, "empty")
	two := filepath.Join(dir, "two")
	os.WriteFile(empty, []byte("\n"), 0o600)
	os.WriteFile(two, []byte("s3cr3t\nmore\n"), 0o600)
	for _, c := range []struct {
		url  string
		env  map[string]string
		want string
	}{
		{"redis://h", map[string]string{EnvPassword: "s3cr3t", EnvPasswordFile: file}, "RETRY_REDIS_PASSWORD_FILE and RETRY_REDIS_PASSWORD are both set"},
		{"redis://h", map[string]string{EnvPasswordFile: filepath.Join(dir, "none")}, "RETRY_REDIS_PASSWORD_FILE: cannot read the password: " + dir + "/none: no such file or directory"},
		{"redis://h", map[string]string{EnvPasswordFile: empty}, "is empty"},
		{"redis://h", map[string]string{EnvPasswordFile: two}, "more than one line"},
		{"redis://h", map[string]string{EnvCACert: file}, "RETRY_REDIS_CACERT is set, but redis://h does not use TLS: want rediss://…"},
		{"redis+cluster://h:1", map[string]string{EnvKey: file}, "want rediss+cluster://…"},
		{"rediss://h", map[string]string{EnvCACert: file}, "RETRY_REDIS_CACERT: " + file + " holds no PEM certificate"},
		{"rediss://h", map[string]string{EnvCert: file}, "give both"},
	} {
		u, _ := ParseURL(c.url)
		err := u.Configure(func(k string) string { return c.env[k] })
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s %v: %v, want an error with %q and no password", c.url, c.env, err, c.want)
		}
	}
}
