#!/usr/bin/env bash
# Peak RSS of retry as the number of attempts grows (issue 9, point 11):
# N attempts that each write 1 MiB to stdout (final mode: kept, then
# dropped when superseded), and N silent attempts. Memory must stay flat in
# N: the run fails when 1000 attempts of 1 MiB peak above $limit_kb.
#   bench/memory.sh [RETRY_BINARY]
# Needs GNU time (/usr/bin/time, Debian package "time").
set -euo pipefail
cd "$(dirname "$0")/.."
retry=${1:-}
if [ -z "$retry" ]; then
	retry=$(mktemp -d)/retry
	go build -o "$retry" .
fi
limit_kb=${limit_kb:-20480}

peak() { # peak RSS in KB of: retry ARGS...
	/usr/bin/time -f %M "$retry" "$@" 2>&1 >/dev/null | tail -1
}

printf '%-34s %10s\n' case "peak RSS"
for n in 10 100 1000; do
	kb=$(peak run -q --mode off -n "$n" -d 0 --stdout final --shell "head -c 1048576 /dev/zero; [ \"\$RETRY_ATTEMPT\" -eq $n ]")
	printf '%-34s %7d KB\n' "$n attempts x 1 MiB stdout" "$kb"
	last=$kb
done
for n in 100 10000; do
	kb=$(peak run -q --mode off -n "$n" -d 0 -- false || true)
	printf '%-34s %7d KB\n' "$n silent attempts" "$kb"
done
if [ "$last" -gt "$limit_kb" ]; then
	echo "FAIL: 1000 attempts of 1 MiB peaked at $last KB, above $limit_kb KB" >&2
	exit 1
fi
