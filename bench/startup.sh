#!/usr/bin/env bash
# Start-up cost of `retry run -- true` against `true` alone and Debian's
# `retry -t 1 -- true` (one attempt in total; the apt package `retry`,
# installed if missing), interleaved round by round: each round times a
# batch of BATCH invocations of each tool, in rotating order. Reports the
# median per invocation and the cost over `true`. Two floors are timed
# beside them (bench/gofloor, built like retry): a Go program that does
# nothing, and one that only runs /bin/true with os/exec — what any Go
# tool that runs a command costs at least.
# Usage: bench/startup.sh [ROUNDS] [BATCH] [RETRY_BINARY...]
#   extra binaries (an older build) are timed alongside as `retry run`.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-31}
batch=${2:-20}
shift $(($# > 2 ? 2 : $#))
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" .
CGO_ENABLED=0 go build -o "$out/gofloor" ./bench/gofloor
F=$PWD/$out/gofloor
R=$PWD/$out/retry
if ! [ -x /usr/bin/retry ]; then
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq retry) >/dev/null 2>&1 || true
fi
. bench/lib.sh

loop() { local i; for ((i = 0; i < batch; i++)); do "$@"; done; }
args=(true "loop /bin/true" "retry" "loop $R run -q -- /bin/true"
	"Go, empty main" "loop $F" "Go, os/exec of true" "loop $F /bin/true")
[ -x /usr/bin/retry ] && args+=("Debian retry" "loop /usr/bin/retry -t 1 -- /bin/true")
for b in "$@"; do args+=("$b" "loop $b run -q -- /bin/true"); done
interleave "${args[@]}"

ms() { awk -v t="$1" -v n="$batch" 'BEGIN {printf "%.2f", t * 1000 / n}'; }
over() { awk -v a="$1" -v b="${t[true]}" -v n="$batch" 'BEGIN {printf "%+.2f", (a - b) * 1000 / n}'; }
echo "start-up, median of $rounds rounds of $batch invocations each (ms per invocation):"
for name in true retry "Debian retry" "Go, empty main" "Go, os/exec of true" "$@"; do
	[ -n "${t[$name]:-}" ] || continue
	printf '  %-40s %6s ms  (%s ms over true)\n' "$name" "$(ms "${t[$name]}")" "$(over "${t[$name]}")"
done
