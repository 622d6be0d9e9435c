package redis

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
)

// The variables that configure every Redis store retry opens, whatever
// names it (--scope-store, --state …/KEY, retry scope, retry state): one
// form for all, and none of it in argv, where every user of the machine
// reads it (ps).
const (
	// EnvCACert names a PEM file of the CAs that sign the servers'
	// certificates (rediss…): they replace the system's roots.
	EnvCACert = "RETRY_REDIS_CACERT"
	// EnvCert and EnvKey name the client certificate and its key (PEM),
	// for a server that asks for one (tls-auth-clients, mutual TLS).
	EnvCert = "RETRY_REDIS_CERT"
	EnvKey  = "RETRY_REDIS_KEY"
	// EnvPassword is the password of a URL that has none (its user, or the
	// default user).
	EnvPassword = "RETRY_REDIS_PASSWORD"
	// EnvPasswordFile names a file holding it (a Kubernetes or Docker
	// secret); one trailing newline is not part of it.
	EnvPasswordFile = "RETRY_REDIS_PASSWORD_FILE"
	// EnvCLIAuth is redis-cli's own variable, read last.
	EnvCLIAuth = "REDISCLI_AUTH"
	// EnvSentinelPassword is the sentinels' password, when they have one
	// apart from the data nodes'.
	EnvSentinelPassword = "RETRY_REDIS_SENTINEL_PASSWORD"
)

// Configure reads the store's variables from getenv: the password of a URL
// that has none (RETRY_REDIS_PASSWORD_FILE, else RETRY_REDIS_PASSWORD,
// else REDISCLI_AUTH; a password in the URL wins), the sentinels' password,
// and for rediss… the CA file and the client certificate and key. A TLS
// variable set for a URL without TLS is refused (its user meant rediss://),
// as are a file that cannot be read, a CA file without a certificate, a
// certificate without its key, and both password variables at once. The
// errors name the variable and never hold a password.
func (u *URL) Configure(getenv func(string) string) error {
	if u.password == "" {
		file, pw := getenv(EnvPasswordFile), getenv(EnvPassword)
		switch {
		case file != "" && pw != "":
			return fmt.Errorf("%s and %s are both set: give the password one way", EnvPasswordFile, EnvPassword)
		case file != "":
			b, err := os.ReadFile(file)
			if err != nil {
				return fmt.Errorf("%s: cannot read the password: %v", EnvPasswordFile, pathError(err))
			}
			s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
			if s == "" {
				return fmt.Errorf("%s: %s is empty: want the password", EnvPasswordFile, file)
			}
			if strings.ContainsAny(s, "\r\n") {
				return fmt.Errorf("%s: %s holds more than one line: want the password alone", EnvPasswordFile, file)
			}
			u.password = s
		case pw != "":
			u.password = pw
		default:
			u.password = getenv(EnvCLIAuth)
		}
	}
	u.sentinelPassword = getenv(EnvSentinelPassword)
	ca, cert, key := getenv(EnvCACert), getenv(EnvCert), getenv(EnvKey)
	if ca == "" && cert == "" && key == "" {
		return nil
	}
	if !u.TLS {
		set := EnvCACert
		if ca == "" {
			set = EnvCert
			if cert == "" {
				set = EnvKey
			}
		}
		return fmt.Errorf("%s is set, but %s does not use TLS: want %s://…", set, u.redacted, strings.Replace(u.scheme(), "redis", "rediss", 1))
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return fmt.Errorf("%s: cannot read the CA certificates: %v", EnvCACert, pathError(err))
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%s: %s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", EnvCACert, ca)
		}
		conf.RootCAs = pool
	}
	if (cert == "") != (key == "") {
		return fmt.Errorf("%s and %s: give both, the client certificate and its key, or neither", EnvCert, EnvKey)
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return fmt.Errorf("%s and %s: cannot load the client certificate and its key: %v", EnvCert, EnvKey, pathError(err))
		}
		conf.Certificates = []tls.Certificate{pair}
	}
	u.tlsConfig = conf
	return nil
}

// pathError is err without the operation's name: "open /x: no such file"
// says "/x: no such file or directory".
func pathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// CertError is a TLS handshake that failed on a certificate: the server's
// does not verify (another CA, another name, expired), or the server
// refused ours (none given, or one it does not trust). Trying again will
// not change it: it is a configuration to fix, not a store that is down.
type CertError struct {
	Addr string
	Err  error
	// NoCert: the server asked for a client certificate and got none.
	NoCert bool
}

func (e *CertError) Error() string {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(e.Err, &unknown):
		return fmt.Sprintf("%s: the server's TLS certificate is not signed by a CA retry trusts (%v); name the CA's certificate file in %s", e.Addr, e.Err, EnvCACert)
	case errors.As(e.Err, &host):
		return fmt.Sprintf("%s: the server's TLS certificate is for another name (%v); use a name it holds in the URL", e.Addr, e.Err)
	case errors.As(e.Err, &invalid):
		return fmt.Sprintf("%s: the server's TLS certificate is not valid (%v)", e.Addr, e.Err)
	case e.NoCert:
		return fmt.Sprintf("%s: the server wants a client TLS certificate and closed the connection (%v); name the certificate, and its key, in %s and %s", e.Addr, e.Err, EnvCert, EnvKey)
	}
	return fmt.Sprintf("%s: the server refused this client's TLS certificate (%v); name one it trusts, and its key, in %s and %s", e.Addr, e.Err, EnvCert, EnvKey)
}

func (e *CertError) Unwrap() error { return e.Err }

// certError returns err as a *CertError when it is a certificate refused,
// by either side of the handshake, or, when the server asked for a client
// certificate and got none (noCert), any end of the connection; nil
// otherwise.
func certError(addr string, err error, noCert bool) *CertError {
	if err == nil {
		return nil
	}
	var verify *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var op *net.OpError
	if errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid) {
		return &CertError{Addr: addr, Err: err}
	}
	remote := errors.As(err, &op) && op.Op == "remote error"
	if remote && strings.Contains(op.Err.Error(), "certificate") {
		return &CertError{Addr: addr, Err: err, NoCert: noCert}
	}
	if noCert && (remote || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)) {
		return &CertError{Addr: addr, Err: err, NoCert: true}
	}
	return nil
}
