//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package privatefile

// retry runs on Linux, macOS (darwin), FreeBSD, NetBSD and OpenBSD only
// (see bucket/unsupported.go): its state files need flock and O_NOFOLLOW.
// Elsewhere this stops the build with an error that says so, before the
// unix-only names of this package are missed.
var _ = retry_supports_only_linux_darwin_freebsd_netbsd_openbsd
