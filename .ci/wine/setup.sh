#!/usr/bin/env bash
# Makes Windows builds of Go >= 1.24 runnable under Debian's Wine 8, for
# .ci/run's Windows phase. From the team's shared/wine/setup.sh (vendored
# here because CI runs on a clean checkout of this repository).
#
# Go's Windows runtime needs ProcessPrng from bcryptprimitives.dll, which
# Wine 8 lacks. This installs wine64 and a mingw-w64 compiler (Debian
# packages), builds a one-function bcryptprimitives.dll (processprng.c:
# ProcessPrng over advapi32's RtlGenRandom) and puts it in the Wine
# prefix's system32, where Go's runtime looks for it.
#
# Usage: setup.sh [PREFIX]   (default: $WINEPREFIX, else ~/.wine-retry)
# Then:  GOOS=windows go test -exec .ci/wine/wine-exec ./...
# Wine is not Windows: what passes here is a floor, not proof.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-${WINEPREFIX:-$HOME/.wine-retry}}
if ! [ -x /usr/lib/wine/wine64 ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
	sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo -n"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wine64 gcc-mingw-w64-x86-64 >/dev/null
fi
export WINEPREFIX=$prefix WINEDEBUG=-all
[ -d "$prefix/drive_c/windows/system32" ] || /usr/lib/wine/wine64 wineboot --init >/dev/null 2>&1 || true
out=$(mktemp -d)
x86_64-w64-mingw32-gcc -shared -O2 -o "$out/bcryptprimitives.dll" "$here/processprng.c" -ladvapi32 -Wl,--kill-at
cp "$out/bcryptprimitives.dll" "$prefix/drive_c/windows/system32/"
rm -rf "$out"
echo "wine prefix ready: $prefix"
