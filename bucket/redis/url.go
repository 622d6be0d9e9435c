package redis

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Topology is how a store's servers are deployed.
type Topology int

const (
	// Single is one server (redis://, rediss://).
	Single Topology = iota
	// Cluster is a Redis Cluster (redis+cluster://): keys spread over hash
	// slots, any node enough to find the rest.
	Cluster
	// Sentinel is a primary found through Sentinel (redis+sentinel://),
	// which names the new one after a failover.
	Sentinel
)

// Forms is the URL forms a store takes, for messages.
const Forms = "redis://[USER:PASSWORD@]HOST[:PORT][/DB], redis+cluster://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…] or redis+sentinel://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…]/MASTER[/DB] (rediss… for TLS)"

// URL is a parsed store URL.
type URL struct {
	Topology Topology
	// TLS: rediss://, rediss+cluster://, rediss+sentinel://.
	TLS bool
	// Addrs are the servers (HOST:PORT) the URL names: the server, the
	// cluster's nodes, or the sentinels.
	Addrs []string
	// Master is the name of the primary Sentinel watches.
	Master string
	// DB is the database number (0 on a cluster, which has only that).
	DB int

	user, password string
	// passwordInURL: the password came from the URL (argv, unless the
	// URL itself came from the environment).
	passwordInURL bool
	// sentinelPassword is the sentinels' own (RETRY_REDIS_SENTINEL_PASSWORD).
	sentinelPassword string
	tlsConfig        *tls.Config
	redacted         string
}

// defaultPort is the port of a HOST given without one.
func (t Topology) defaultPort() string {
	if t == Sentinel {
		return "26379"
	}
	return "6379"
}

// ParseURL parses a store URL (Forms). It refuses another scheme, a
// missing host, a port that is not a number in 1-65535, a DB that is not a
// number, a cluster URL with a DB, a Sentinel URL without MASTER, and query
// parameters; the error never holds the password.
func ParseURL(raw string) (*URL, error) {
	u, path, err := parse(raw)
	if err != nil {
		return nil, err
	}
	if path != "" {
		if err := u.setPath(path); err != nil {
			return nil, err
		}
	}
	if u.Topology == Sentinel && u.Master == "" {
		return nil, fmt.Errorf("%s: no MASTER; want %s://HOST:PORT[,HOST:PORT…]/MASTER[/DB]", u.redacted, u.scheme())
	}
	return u, nil
}

// parse reads the scheme and the servers of raw, and returns the path
// unread: "/2" (a database), "/mymaster/2", "/KEY" after them for --state.
func parse(raw string) (*URL, string, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return nil, "", errors.New("not a URL; want " + Forms)
	}
	u := &URL{}
	switch scheme {
	case "redis", "rediss":
	case "redis+cluster", "rediss+cluster":
		u.Topology = Cluster
	case "redis+sentinel", "rediss+sentinel":
		u.Topology = Sentinel
	default:
		return nil, "", fmt.Errorf("scheme %q: want %s", scheme, Forms)
	}
	u.TLS = strings.HasPrefix(scheme, "rediss")
	authority, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	// The user information is what the last @ ends (a password may hold
	// @ when escaped, never bare; url.Parse checks its escapes).
	userinfo, hosts := "", authority
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		userinfo, hosts = authority[:i+1], authority[i+1:]
	}
	pu, err := url.Parse(scheme + "://" + userinfo + "h" + path)
	if err != nil {
		return nil, "", errors.New("not a URL; want " + Forms)
	}
	if pu.User != nil {
		u.user = pu.User.Username()
		u.password, u.passwordInURL = pu.User.Password()
	}
	redactedUser := ""
	if pu.User != nil {
		if u.passwordInURL {
			redactedUser = url.UserPassword(u.user, "xxxxx").String()
		} else {
			redactedUser = pu.User.String()
		}
		redactedUser += "@"
	}
	// The redacted URL is what every message shows: the path as given
	// (a --state KEY is appended by the caller).
	u.redacted = scheme + "://" + redactedUser + hosts
	// Errors name the whole URL, its path included.
	whole := u.redacted + pu.EscapedPath()
	if pu.RawQuery != "" || pu.Fragment != "" || strings.ContainsAny(path, "?#") {
		return nil, "", fmt.Errorf("%s: no query or fragment accepted", whole)
	}
	if hosts == "" {
		return nil, "", fmt.Errorf("%s: no host; want %s://HOST[:PORT]…", whole, scheme)
	}
	for _, h := range strings.Split(hosts, ",") {
		addr, err := u.Topology.addr(h)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %v", whole, err)
		}
		u.Addrs = append(u.Addrs, addr)
	}
	if u.Topology == Single && len(u.Addrs) > 1 {
		return nil, "", fmt.Errorf("%s: one HOST[:PORT] only; a cluster is redis+cluster://HOST:PORT,HOST:PORT…", whole)
	}
	return u, pu.Path, nil
}

// addr checks one HOST[:PORT] and gives it its default port.
func (t Topology) addr(h string) (string, error) {
	host, port := h, ""
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", fmt.Errorf("host %q: an IPv6 address without its ]", h)
		}
		host, port = h[1:end], h[end+1:]
		if port != "" && !strings.HasPrefix(port, ":") {
			return "", fmt.Errorf("host %q: want [ADDRESS]:PORT", h)
		}
		port = strings.TrimPrefix(port, ":")
		if port == "" && strings.HasSuffix(h, ":") {
			port = "x"
		}
	} else if i := strings.LastIndexByte(h, ':'); i >= 0 {
		host, port = h[:i], h[i+1:]
		if port == "" {
			port = "x" // "h:" is a port left out by mistake
		}
	}
	if host == "" {
		return "", errors.New("no host; want HOST[:PORT]")
	}
	if strings.ContainsAny(host, "/@[]%") || strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "", fmt.Errorf("host %q: not a host name or address", host)
	}
	if port == "" {
		port = t.defaultPort()
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || port[0] == '+' {
		if port == "x" {
			port = ""
		}
		return "", fmt.Errorf("port %q: want a number in 1-65535", port)
	}
	return net.JoinHostPort(host, port), nil
}

// setPath reads the path after the servers: /DB for one server, nothing
// for a cluster, /MASTER[/DB] for Sentinel.
func (u *URL) setPath(path string) error {
	shown := u.redacted + (&url.URL{Path: path}).EscapedPath()
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(parts) == 1 && parts[0] == "" {
		return nil
	}
	db := ""
	switch u.Topology {
	case Single:
		if len(parts) > 1 {
			return fmt.Errorf("%s: want %s://HOST[:PORT][/DB]", shown, u.scheme())
		}
		db = parts[0]
	case Cluster:
		return fmt.Errorf("%s: a cluster has one database, 0: no /DB (want %s://HOST:PORT[,HOST:PORT…])", shown, u.scheme())
	case Sentinel:
		if len(parts) > 2 || parts[0] == "" {
			return fmt.Errorf("%s: want %s://HOST:PORT[,HOST:PORT…]/MASTER[/DB]", shown, u.scheme())
		}
		u.Master = parts[0]
		if len(parts) == 2 {
			db = parts[1]
		}
	}
	if db == "" {
		if strings.HasSuffix(path, "/") && len(parts) > 1 {
			return fmt.Errorf("%s: database \"\": want a number (/0, /1, …)", shown)
		}
		u.redacted = shown
		return nil
	}
	n, err := strconv.Atoi(db)
	if err != nil || n < 0 || db[0] == '+' {
		return fmt.Errorf("%s: database %q: want a number (/0, /1, …)", shown, db)
	}
	u.DB, u.redacted = n, shown
	return nil
}

// ParseKeyURL parses a store URL whose path ends with a key (--state
// …/KEY): the store, and the key unescaped. form is the usage the errors
// show.
func ParseKeyURL(raw, form string) (*URL, string, error) {
	u, path, err := parse(raw)
	if err != nil {
		return nil, "", err
	}
	i := strings.LastIndexByte(path, '/')
	if i < 0 || path[i+1:] == "" {
		return nil, "", fmt.Errorf("%s: no KEY; want %s", u.redacted+(&url.URL{Path: path}).EscapedPath(), form)
	}
	key := path[i+1:]
	whole := u.redacted + (&url.URL{Path: path}).EscapedPath()
	if strings.ContainsAny(key, "\x00\n\r") {
		return nil, "", fmt.Errorf("%s: the KEY holds a control character", whole)
	}
	if err := u.setPath(path[:i]); err != nil {
		// Name the whole URL, the key included.
		return nil, "", errors.New(strings.Replace(err.Error(), u.redacted+(&url.URL{Path: path[:i]}).EscapedPath(), whole, 1))
	}
	if u.Topology == Sentinel && u.Master == "" {
		return nil, "", fmt.Errorf("%s: no MASTER; want %s", whole, form)
	}
	return u, key, nil
}

// String returns the URL with its password replaced by xxxxx.
func (u *URL) String() string { return u.redacted }

// PasswordInURL reports whether the URL holds a password: visible to
// every user of the machine (ps) when it was given on the command line.
func (u *URL) PasswordInURL() bool { return u.passwordInURL }

// ArgvWarning is the warning of a URL given on the command line (flag
// names where) with its password, which every user of the machine can read
// there (ps) while retry runs; "" when it holds none.
func (u *URL) ArgvWarning(flag string) string {
	if !u.passwordInURL {
		return ""
	}
	return fmt.Sprintf("warning: %s: the password in the URL is visible to every user of this machine (ps); give it in %s or a file named by %s instead", flag, EnvPassword, EnvPasswordFile)
}
func (u *URL) scheme() string {
	s, _, _ := strings.Cut(u.redacted, "://")
	return s
}
