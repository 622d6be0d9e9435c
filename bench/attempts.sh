#!/usr/bin/env bash
# Per-attempt cost of `retry run` against the tools users would pick instead,
# timed side by side in one run: 1000 attempts of /bin/false with no delay.
#   - a bash loop running /bin/false 1000 times (the floor: fork+exec)
#   - Debian's retry (apt package `retry`), installed if missing
#   - retry run --attempts 1000 --delay 0 --mode off -- /bin/false
#     (--mode off: the standard token bucket would stop a single process
#     after 36 attempts, which is the point of it, but not what is timed here)
# Also: `retry run -- true` against `true` alone, and peak RSS.
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

loop() { for _ in $(seq 1000); do /bin/false; done; }
export -f loop

t_loop=$(median bash -c loop)
t_ours=$(median "$R" run -q --attempts 1000 --delay 0 --mode off -- /bin/false)
if [ -x /usr/bin/retry ]; then
	# Debian's retry: -t is the number of retries after the first try.
	t_deb=$(median /usr/bin/retry -t 999 -d 0 -- /bin/false)
else
	t_deb=""
fi
t_true1=$(median bash -c 'for _ in $(seq 200); do /bin/true; done')
t_rtrue=$(median bash -c "for _ in \$(seq 200); do $R run -q -- /bin/true; done")

per() { awk -v t="$1" 'BEGIN {printf "%.1f", t * 1000000 / 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo "1000 attempts of /bin/false, median of $rounds rounds (µs per attempt):"
printf '  %-28s %8s µs\n' "bash loop" "$(per "$t_loop")"
[ -n "$t_deb" ] && printf '  %-28s %8s µs\n' "Debian retry" "$(per "$t_deb")"
printf '  %-28s %8s µs\n' "retry run" "$(per "$t_ours")"
echo "ratios: retry/bash-loop $(ratio "$t_ours" "$t_loop")x" \
	"${t_deb:+, Debian-retry/bash-loop $(ratio "$t_deb" "$t_loop")x, retry/Debian-retry $(ratio "$t_ours" "$t_deb")x}"
over=$(awk -v a="$t_rtrue" -v b="$t_true1" 'BEGIN {printf "%.3f", (a - b) * 1000 / 200}')
echo "retry run -- true vs true alone: +$over ms per invocation (200 invocations each)"

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
