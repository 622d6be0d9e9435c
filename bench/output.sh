#!/usr/bin/env bash
# Output acceptors: 100 patterns like '(alpha|beta)[0-9]+-never-N' over
# 1 MiB of log-like output that none of them matches, for 3 attempts (the
# command fails, so each attempt is evaluated and retried):
#   retry run -n 3 -d 0 --mode off --retry-output P1 ... --retry-output P100 --shell 'cat log; exit 1'
# against `grep -E -f patterns log` run 3 times (the same patterns over the
# same bytes), interleaved round by round.
# Usage: bench/output.sh [ROUNDS] [OLD_RETRY_BINARY]   (an older build is
# timed once, alone: before the prefilter it took seconds)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11}
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" .
R=$PWD/$out/retry
log=$out/output-1mib.log
python3 - "$log" <<'PY'
import sys
lines, n, i = [], 0, 0
while n < 1 << 20:
    l = '2026-11-23T04:%02d:%02d level=info msg="request %d done" alpha%d beta-%d status=200 bytes=%d\n' % (i // 60 % 60, i % 60, i, i, i * 7, i * 13)
    lines.append(l); n += len(l); i += 1
open(sys.argv[1], "w").write("".join(lines)[: 1 << 20])
PY
: > "$out/patterns"
args=()
for i in $(seq 0 99); do
	echo "(alpha|beta)[0-9]+-never-$i" >> "$out/patterns"
	args+=(--retry-output "(alpha|beta)[0-9]+-never-$i")
done
printf -v ours '%q ' "$R" run -q -n 3 -d 0 --mode off --stdout final "${args[@]}" --shell "cat $log; exit 1"
grep3="for _ in 1 2 3; do grep -E -f $out/patterns $log; done"

if [ -n "${2:-}" ]; then
	printf -v old '%q ' "$2" run -q -n 3 -d 0 --mode off --stdout final "${args[@]}" --shell "cat $log; exit 1"
	s=$EPOCHREALTIME; eval "$old" >/dev/null 2>&1 || true; e=$EPOCHREALTIME
	awk -v s="$s" -v e="$e" -v b="$2" 'BEGIN {printf "%s (once): %.1f ms\n", b, (e - s) * 1000}'
fi
"$R" run -q -n 3 -d 0 --mode off --stdout final "${args[@]}" --report "$out/output-report.json" --shell "cat $log; exit 1" >/dev/null 2>&1 || true
grep -c '"attempt":' "$out/output-report.json" | grep -qx 3 || { echo "expected 3 attempts"; exit 1; }

. bench/lib.sh
interleave "retry" "-- $ours" "grep" "-- sh -c '$grep3'"
echo "100 output patterns over 1 MiB, 3 attempts, median of $rounds interleaved rounds:"
printf '  %-44s %s\n' "retry run -n 3 --retry-output ×100" "$(row retry)" \
	"grep -E -f patterns, 3 times" "$(row grep)"
echo "CPU ratio retry/grep: $(ratio "${c[retry]}" "${c[grep]}")x"
loadline
