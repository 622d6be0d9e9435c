package redis

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzParseURL: --scope-store takes any string. ParseURL never panics, an
// error never shows the URL's password, and a URL it accepts prints
// without it.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"redis://h", "rediss://u:p@h:6380/2", "redis://:pw@h:0", "http://h", "redis://h:99999", "redis://u:p@h/x?y", "redis://[::1]:6379/0", "redis://%zz@h", "redis+cluster://u:p@a:1,b:2", "rediss+sentinel://:p@s1,[::1]:2/m/1", "redis+cluster://h/0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ParseURL(raw)
		// The secret is the user info with its password, as the URL
		// writes it ("ops:s3cr3t"); it must not show unless the URL holds
		// it somewhere else too.
		secret := ""
		if pu, perr := url.Parse(raw); perr == nil && pu.User != nil {
			if pw, _ := pu.User.Password(); pw != "" {
				secret = pu.User.String()
			}
		}
		redacted := ""
		if pu, perr := url.Parse(raw); perr == nil && pu.User != nil {
			redacted = url.UserPassword(pu.User.Username(), "xxxxx").String()
		}
		if secret == "" || strings.Count(raw, secret) != 1 || strings.Contains(redacted, secret) {
			return
		}
		// The usage text in some errors ("[USER:PASSWORD@]HOST…") is not
		// the URL's: a password like "P" would be found in it.
		if err != nil && strings.Contains(strings.ReplaceAll(strings.ReplaceAll(err.Error(), Forms, ""), "[USER:PASSWORD@]HOST[:PORT][/DB]", ""), secret) {
			t.Fatalf("error %q shows the password (%q)", err, secret)
		}
		if err == nil && strings.Contains(u.String(), secret) {
			t.Fatalf("String() = %q shows the password (%q)", u, secret)
		}
	})
}
