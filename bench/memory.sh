#!/usr/bin/env bash
# Peak RSS of retry as the number of attempts grows (issue 9, point 11):
# N attempts that each write 1 MiB to stdout (final mode: kept, then
# dropped when superseded), and N silent attempts. Memory must stay flat in
# N: the run fails when 1000 attempts of 1 MiB peak above $limit_kb.
#   bench/memory.sh [RETRY_BINARY]
# Peak RSS and CPU (user+sys) from bench/rusage.
set -euo pipefail
cd "$(dirname "$0")/.."
retry=${1:-}
if [ -z "$retry" ]; then
	retry=$(mktemp -d)/retry
	CGO_ENABLED=0 go build -o "$retry" .
fi
limit_kb=${limit_kb:-20480}

ru=$(mktemp -d)/rusage
CGO_ENABLED=0 go build -o "$ru" ./bench/rusage
peak() { # prints "peak-RSS-KB CPU-ms" of: retry ARGS... (bench/rusage)
	"$ru" -o "$ru.line" -- "$retry" "$@" >/dev/null 2>&1
	awk '{printf "%d %.1f\n", $4, ($2 + $3) * 1000}' "$ru.line"
}

printf '%-34s %10s %12s\n' case "peak RSS" "CPU"
for n in 10 100 1000; do
	read -r kb ms < <(peak run -q --mode off -n "$n" -d 0 --stdout final --shell "head -c 1048576 /dev/zero; [ \"\$RETRY_ATTEMPT\" -eq $n ]")
	printf '%-34s %7d KB %9s ms\n' "$n attempts x 1 MiB stdout" "$kb" "$ms"
	last=$kb
done
for n in 100 10000; do
	read -r kb ms < <(peak run -q --mode off -n "$n" -d 0 -- false)
	printf '%-34s %7d KB %9s ms\n' "$n silent attempts" "$kb" "$ms"
done
echo "load average (1/5/15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$last" -gt "$limit_kb" ]; then
	echo "FAIL: 1000 attempts of 1 MiB peaked at $last KB, above $limit_kb KB" >&2
	exit 1
fi
