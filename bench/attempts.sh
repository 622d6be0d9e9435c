#!/usr/bin/env bash
# Per-attempt cost of `retry run` against the tools users would pick instead,
# timed side by side in one run: 1000 attempts of /bin/false with no delay.
#   - a bash loop running /bin/false 1000 times (the floor: fork+exec)
#   - Debian's retry (apt package `retry`), installed if missing
#   - retry run --attempts 1000 --delay 0 --mode off -- /bin/false
#     (--mode off: the standard token bucket would stop a single process
#     after 36 attempts, which is the point of it, but not what is timed here)
# (`retry run -- true` against `true` alone: bench/startup.sh.) Also the
# peak RSS and the accuracy of a planned delay.
# The tools are interleaved round by round (bench/lib.sh).
# Usage: bench/attempts.sh [ROUNDS]   (ROUNDS of each, median reported)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" .
R=$PWD/$out/retry
if ! [ -x /usr/bin/retry ]; then
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq retry) >/dev/null 2>&1 || true
fi
command -v /usr/bin/time >/dev/null || { (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time) >/dev/null 2>&1 || true; }

. bench/lib.sh

args=("bash loop" "-- bash -c 'for ((i = 0; i < 1000; i++)); do /bin/false; done'"
	"retry run" "-- $R run -q --attempts 1000 --delay 0 --mode off -- /bin/false")
# Debian's retry: -t N makes N attempts in total (its man page says "the
# number of times to retry", but `retry -t 3 -- false` runs false 3 times).
[ -x /usr/bin/retry ] && args+=("Debian retry" "-- /usr/bin/retry -t 1000 -d 0 -- /bin/false")
interleave "${args[@]}"

per() { awk -v t="$1" 'BEGIN {printf "%.1f", t * 1000000 / 1000}'; }
echo "1000 attempts of /bin/false, median of $rounds interleaved rounds, per attempt:"
for name in "bash loop" "Debian retry" "retry run"; do
	[ -n "${t[$name]:-}" ] || continue
	printf '  %-28s %8s µs CPU %8s µs wall\n' "$name" "$(per "${c[$name]}")" "$(per "${t[$name]}")"
done
echo "CPU ratios: retry/bash-loop $(ratio "${c[retry run]}" "${c[bash loop]}")x${t[Debian retry]:+, retry/Debian-retry $(ratio "${c[retry run]}" "${c[Debian retry]}")x}"
loadline

if command -v /usr/bin/time >/dev/null; then
	rss=$( { /usr/bin/time -f %M "$R" run -q --attempts 1000 --delay 0 --mode off -- /bin/false || true; } 2>&1 >/dev/null | tail -1)
	echo "peak RSS, 1000 attempts: $((rss / 1024)) MB ($rss KB)"
	rss=$( { /usr/bin/time -f %M "$R" run -q --stdout final -- head -c 1073741824 /dev/zero; } 2>&1 >/dev/null | tail -1)
	echo "peak RSS, 1 GB of output in final mode: $((rss / 1024)) MB ($rss KB)"
fi

# Delay accuracy: 21 attempts, constant 20ms delay, no jitter; the report's
# start times give the real gaps; error = gap - duration of attempt - planned.
"$R" run -q -n 21 -d 20ms --backoff constant --jitter none --mode off --report "$out/delays.json" -- /bin/false || true
python3 - "$out/delays.json" <<'PY'
import json, sys, datetime, statistics
r = json.load(open(sys.argv[1]))
a = r["attempts"]
def t(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
errs = []
for prev, cur in zip(a, a[1:]):
    gap = (t(cur["start"]) - t(prev["start"])) * 1000 - prev["duration_ms"]
    errs.append(abs(gap - prev["delay_ms"]))
print("planned-delay error over %d delays: median %.3f ms, max %.3f ms" % (len(errs), statistics.median(errs), max(errs)))
PY
