#!/usr/bin/env bash
# Per-attempt cost of `retry run --url` against a local server that answers
# 500, 1000 attempts with no delay, side by side in one run with
#   - a bash loop of `curl -s` (250 processes)
#   - one curl making 1000 requests over one connection (URL globbing):
#     the floor of an HTTP client
#   - curl --retry (one process; curl's own retry); curl cannot retry
#     without sleeping (--retry-delay takes whole seconds, and 0 means its
#     default backoff from 1s), so it is timed with 3 retries, 1s apart
# and the peak RSS of retry with a 1 GiB response body in final mode. The
# tools are interleaved round by round (bench/lib.sh); CPU is the client's
# (user+sys of its process tree), beside wall time.
# Usage: bench/http.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" . && go build -o "$out/httpserver" ./bench/httpserver
R=$PWD/$out/retry
command -v curl >/dev/null || { (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl) >/dev/null 2>&1; }
# A url file left by an earlier run would be read before the server writes
# its own.
rm -f "$out/url"
"$out/httpserver" > "$out/url" &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$out/url" ] && break; sleep 0.05; done
url=$(cat "$out/url")

. bench/lib.sh
interleave "curl loop" "-- bash -c 'for ((i = 0; i < 250; i++)); do curl -s $url/500; done'" \
	"curl, one connection" "-- curl -s '$url/500?i=[1-1000]'" \
	"curl --retry" "-- curl -sf --retry 3 --retry-delay 1 $url/500" \
	"retry" "-- $R run -q --attempts 1000 --delay 0 --mode off --url $url/500"
per() { awk -v t="$1" -v n="$2" 'BEGIN {printf "%.1f", t * 1000000 / n}'; }
echo "requests to a local server answering 500, median of $rounds interleaved rounds, per request"
echo "(the client's CPU: the server is not in the measured tree):"
printf '  %-44s %8s µs CPU %8s µs wall\n' \
	"bash loop of curl -s, 250 processes" "$(per "${c[curl loop]}" 250)" "$(per "${t[curl loop]}" 250)" \
	"one curl, 1000 URLs over one connection" "$(per "${c[curl, one connection]}" 1000)" "$(per "${t[curl, one connection]}" 1000)" \
	"retry run --url, 1000 attempts" "$(per "${c[retry]}" 1000)" "$(per "${t[retry]}" 1000)"
echo "CPU ratios per request: retry/one-curl $(awk -v a="${c[retry]}" -v b="${c[curl, one connection]}" 'BEGIN {printf "%.2f", a / b}')x, curl-loop/retry $(awk -v a="${c[curl loop]}" -v b="${c[retry]}" 'BEGIN {printf "%.1f", a * 4 / b}')x"
awk -v c="${t[curl --retry]}" -v u="${c[curl --retry]}" 'BEGIN {printf "curl --retry 3 --retry-delay 1: %.2f s for 4 attempts (%.1f ms CPU; its floor is 1 s per retry)\n", c, u * 1000}'
rounds=1 interleave "big" "-- $R run -q --url $url/big"
echo "peak RSS, 1 GiB body in final mode: $((${m[big]} / 1024)) MB (${m[big]} KB), $(ms "${c[big]}") ms CPU"
loadline
