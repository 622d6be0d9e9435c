#!/usr/bin/env bash
# Per-attempt cost of `retry run --url` against a local server that answers
# 500, 1000 attempts with no delay, side by side in one run with
#   - a bash loop of `curl -sf` (1000 processes)
#   - curl --retry (one process; curl's own retry); curl cannot retry
#     without sleeping (--retry-delay takes whole seconds, and 0 means its
#     default backoff from 1s), so it is timed with 3 retries, 1s apart
# and the peak RSS of retry with a 1 GiB response body in final mode. The
# tools are interleaved round by round (bench/lib.sh).
# Usage: bench/http.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" . && go build -o "$out/httpserver" ./bench/httpserver
R=$PWD/$out/retry
command -v curl >/dev/null || { (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl) >/dev/null 2>&1; }
"$out/httpserver" > "$out/url" &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$out/url" ] && break; sleep 0.05; done
url=$(cat "$out/url")

. bench/lib.sh
loop() { local i; for ((i = 0; i < 1000; i++)); do curl -sf "$url/500" >/dev/null; done; }
interleave "curl loop" "loop" "curl --retry" "curl -sf --retry 3 --retry-delay 1 $url/500" \
	"retry" "$R run -q --attempts 1000 --delay 0 --mode off --url $url/500"
t_loop=${t[curl loop]} t_curl=${t[curl --retry]} t_ours=${t[retry]}
per() { awk -v t="$1" 'BEGIN {printf "%.1f", t * 1000}'; }
echo "1000 attempts against a local 500, median of $rounds interleaved rounds (µs per attempt):"
printf '  %-26s %8s µs\n' "bash loop of curl -sf" "$(per "$t_loop")" "retry run --url" "$(per "$t_ours")"
awk -v a="$t_loop" -v b="$t_ours" 'BEGIN {printf "retry is %.1fx cheaper per attempt than the curl loop\n", a / b}'
awk -v c="$t_curl" 'BEGIN {printf "curl --retry 3 --retry-delay 1: %.2f s for 4 attempts (its floor is 1 s per retry)\n", c}'
if [ -x /usr/bin/time ]; then
	rss=$( { /usr/bin/time -f %M "$R" run -q --url "$url/big" >/dev/null; } 2>&1 | tail -1)
	echo "peak RSS, 1 GiB body in final mode: $((rss / 1024)) MB ($rss KB)"
fi
