//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package bucket

// retry runs on Linux, macOS (darwin), FreeBSD, NetBSD and OpenBSD: its
// attempts need Unix process groups and signals, and its scopes and state
// files need flock and O_NOFOLLOW. The release builds linux, darwin and
// freebsd; netbsd and openbsd build and vet clean but are not tested.
// Elsewhere this file stops the build with an error that says so. It is
// in bucket because every package with platform code (bucket itself,
// runner and the sources above it) is built on top of it, so that the
// build stops here first.
var _ = retry_supports_only_linux_darwin_freebsd_netbsd_openbsd
