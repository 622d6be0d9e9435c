#!/usr/bin/env bash
# Per-invocation cost of --state: `retry run -q -- /bin/true` alone, with
# --state FILE, and with --state redis://127.0.0.1:PORT/KEY (a redis-server
# this script starts on a free loopback port, when installed), interleaved
# round by round (bench/lib.sh), CPU (user+sys of the process tree) beside
# wall time. Two cases per store: a first-attempt success (the state is
# recorded before the attempt and removed after it) and a failed attempt
# that schedules the next (recorded before, updated after). Then the sync
# calls of each case, counted with strace when it is installed.
# Usage: bench/state.sh [ROUNDS] [BATCH] [OLD_RETRY_BINARY]
#   an older build is timed alongside on the file cases.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-21}
batch=${2:-20}
old=${3:-}
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" .
R=$PWD/$out/retry
. bench/lib.sh
W=$(mktemp -d "${TMPDIR:-/tmp}/retry-state-bench.XXXX")
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT

url=
if command -v redis-server >/dev/null; then
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	redis-server --bind 127.0.0.1 --port "$port" --dir "$W" --save '' --appendonly no >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
	url=redis://127.0.0.1:$port
fi

# A failed attempt schedules the next 1ms later (no limit, no doubling):
# every invocation of the batch is due and makes its attempt.
fail="-n 0 --backoff constant -d 1ms --jitter none -- /bin/false"
args=("plain" "-n $batch -- $R run -q -- /bin/true"
	"file, success" "-n $batch -- $R run -q --state $W/ok.json -- /bin/true"
	"file, retry scheduled" "-n $batch -- $R run -q --state $W/fail.json $fail")
[ -n "$url" ] && args+=("redis, success" "-n $batch -- $R run -q --state $url/ok -- /bin/true"
	"redis, retry scheduled" "-n $batch -- $R run -q --state $url/fail $fail")
[ -n "$old" ] && args+=("old: plain" "-n $batch -- $old run -q -- /bin/true"
	"old: file, success" "-n $batch -- $old run -q --state $W/old.json -- /bin/true"
	"old: file, retry scheduled" "-n $batch -- $old run -q --state $W/oldfail.json $fail")
interleave "${args[@]}"

echo "retry run -q -- /bin/true with and without --state: median of $rounds interleaved rounds of $batch invocations, per invocation"
for name in plain "file, success" "file, retry scheduled" "redis, success" "redis, retry scheduled" "old: plain" "old: file, success" "old: file, retry scheduled"; do
	[ -n "${c[$name]:-}" ] || continue
	base=plain
	[[ $name == old:* ]] && base="old: plain"
	printf '  %-28s %s   %s× CPU  %s× wall\n' "$name" "$(row "$name" "$batch")" "$(ratio "${c[$name]}" "${c[$base]}")" "$(ratio "${t[$name]}" "${t[$base]}")"
done
loadline

if command -v strace >/dev/null; then
	syncs() { strace -f -qq -e trace=fsync,fdatasync,sync_file_range -o "$W/st" "$@" >/dev/null 2>&1 || true; grep -c 'sync' "$W/st" || true; }
	echo "sync calls per invocation:"
	echo "  file, success:         $(syncs "$R" run -q --state "$W/s1.json" -- /bin/true)${old:+  (old: $(syncs "$old" run -q --state "$W/s2.json" -- /bin/true))}"
	echo "  file, retry scheduled: $(syncs "$R" run -q --state "$W/s3.json" -n 0 --backoff constant -d 1ms -- /bin/false)${old:+  (old: $(syncs "$old" run -q --state "$W/s4.json" -n 0 --backoff constant -d 1ms -- /bin/false))}"
fi
