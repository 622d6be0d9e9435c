#!/usr/bin/env bash
# Start-up cost of `retry run -- true` against `true` alone and Debian's
# `retry -t 1 -- true` (one attempt in total; the apt package `retry`,
# installed if missing), interleaved round by round: each round times a
# batch of BATCH invocations of each tool, in rotating order. Reports the
# median per invocation and the cost over `true`. Two floors are timed
# beside them (bench/gofloor, built like retry): a Go program that does
# nothing, and one that only runs /bin/true with os/exec — what any Go
# tool that runs a command costs at least — and two layers over the second:
# the same with retry's signal subscription (gofloor -signals), and that
# again built with every package retry's own packages import (unused: only
# their initialisation and the larger binary). The rows between the floor
# and retry split its cost: signals, the imports' initialisation, and
# retry's own code.
# CPU (user+sys of the process tree, bench/rusage) beside wall time, and
# the page faults of one invocation.
# Every binary is timed as a copy of what go build wrote (see build).
# Usage: bench/startup.sh [ROUNDS] [BATCH] [RETRY_BINARY...]
#   extra binaries (an older build) are timed alongside as `retry run`.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-31}
batch=${2:-20}
shift $(($# > 2 ? 2 : $#))
out=bench/out; mkdir -p "$out"
# build BINARY PACKAGE: go build, then a copy of the result is what is
# timed. The linker writes its output through mmap, and a binary as it
# left it costs more CPU at every start than the same bytes written by cp
# (measured here, interleaved: gofloor 0.23 ms, the import floor 0.49 ms,
# retry 0.6 to 1.0 ms more per start); an installed binary is a copy. All
# are copied within one run (an older copy of the same bytes cost 0.16 to
# 0.18 ms more per start here), so their rows compare.
build() { CGO_ENABLED=0 go build -o "$1.link" "$2" && cp "$1.link" "$1" && rm -f "$1.link"; }
build "$out/retry" .
build "$out/gofloor" ./bench/gofloor
# The import floor: gofloor plus a file importing, for their side effects,
# the packages retry's own packages import (the _ keeps `./...` away).
imp=$out/_importfloor; rm -rf "$imp"; mkdir -p "$imp"
cp bench/gofloor/main.go "$imp/"
{
	printf 'package main\n\nimport (\n'
	go list -f '{{join .Imports "\n"}}' $(go list -deps . | grep '^github.com/retry-dev/retry') |
		sort -u | grep -v '^github.com/retry-dev/retry\|^unsafe$\|^C$' | sed 's/.*/\t_ "&"/'
	printf ')\n'
} > "$imp/imports.go"
build "$out/importfloor" "./$imp"
F=$PWD/$out/gofloor
I=$PWD/$out/importfloor
R=$PWD/$out/retry
if ! [ -x /usr/bin/retry ]; then
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq retry) >/dev/null 2>&1 || true
fi
. bench/lib.sh

args=(true "-n $batch -- /bin/true" "retry" "-n $batch -- $R run -q -- /bin/true"
	"Go, empty main" "-n $batch -- $F" "Go, os/exec of true" "-n $batch -- $F /bin/true"
	"Go, os/exec + signals" "-n $batch -- $F -signals /bin/true"
	"Go, + signals + imports" "-n $batch -- $I -signals /bin/true")
[ -x /usr/bin/retry ] && args+=("Debian retry" "-n $batch -- /usr/bin/retry -t 1 -- /bin/true")
# Extra binaries are timed as copies too (a fresh build passed here would
# otherwise pay what the linker's output costs).
n=0
for b in "$@"; do
	n=$((n + 1)); cp "$b" "$out/extra-$n"
	args+=("$b" "-n $batch -- $PWD/$out/extra-$n run -q -- /bin/true")
done
interleave "${args[@]}"

per() { awk -v t="$1" -v n="$batch" 'BEGIN {printf "%.2f", t * 1000 / n}'; }
echo "start-up, median of $rounds rounds of $batch invocations each, per invocation:"
printf '  %-34s %9s %9s %11s %7s\n' "" "CPU ms" "wall ms" "CPU-true" "faults"
for name in true "Debian retry" "Go, empty main" "Go, os/exec of true" "Go, os/exec + signals" \
	"Go, + signals + imports" retry "$@"; do
	[ -n "${t[$name]:-}" ] || continue
	printf '  %-34s %9s %9s %+11.2f %7d\n' "$name" "$(per "${c[$name]}")" "$(per "${t[$name]}")" \
		"$(awk -v a="${c[$name]}" -v b="${c[true]}" -v n="$batch" 'BEGIN {print (a - b) * 1000 / n}')" "$((${f[$name]} / batch))"
done
echo "CPU ratio retry / Go os/exec of true: $(ratio "${c[retry]}" "${c[Go, os/exec of true]}")x"
echo "CPU ratio retry / the import floor (Go, + signals + imports): $(ratio "${c[retry]}" "${c[Go, + signals + imports]}")x (target: at most 1.2x)"
for b in "$@"; do
	echo "CPU ratio $b / the import floor: $(ratio "${c[$b]}" "${c[Go, + signals + imports]}")x"
done
ms() { awk -v a="$1" -v b="$2" -v n="$batch" 'BEGIN {printf "%+.2f ms", (a - b) * 1000 / n}'; }
echo "retry over the floor: signal subscription $(ms "${c[Go, os/exec + signals]}" "${c[Go, os/exec of true]}"), \
imports' initialisation $(ms "${c[Go, + signals + imports]}" "${c[Go, os/exec + signals]}"), \
retry's own code and larger binary $(ms "${c[retry]}" "${c[Go, + signals + imports]}")"
loadline
