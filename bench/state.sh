#!/usr/bin/env bash
# Per-invocation cost of --state: `retry run -q -- /bin/true` alone, with
# --state FILE, and with --state redis://127.0.0.1:PORT/KEY (a redis-server
# this script starts on a free loopback port, when installed), interleaved
# round by round (bench/lib.sh), CPU (user+sys of the process tree) beside
# wall time. Two cases per store: a first-attempt success (the state is
# recorded before the attempt and removed after it) and a failed attempt
# that schedules the next (recorded before, updated after). Beside them,
# the floor of the file case: bench/gofloor running /bin/true, and
# bench/statefloor doing around it only the I/O the contract needs (create
# FILE with a new state's size, lock, fdatasync; remove it after), with and
# without the sync: what the sync alone and the file alone cost a Go
# program. Then, with strace when it is installed, the sync calls of each
# case and the system calls a first-attempt success makes on its state.
# Usage: bench/state.sh [ROUNDS] [BATCH] [OLD_RETRY_BINARY]
#   an older build is timed alongside on the file cases. Every binary is
#   timed as a copy (bench/lib.sh's build).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-21}
batch=${2:-20}
old=${3:-}
out=bench/out; mkdir -p "$out"
. bench/lib.sh
build "$out/retry" .
build "$out/gofloor" ./bench/gofloor
build "$out/statefloor" ./bench/statefloor
R=$PWD/$out/retry G=$PWD/$out/gofloor F=$PWD/$out/statefloor
[ -n "$old" ] && old=$(copy "$old" old-retry)
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
	"file, retry scheduled" "-n $batch -- $R run -q --state $W/fail.json $fail"
	"floor: Go runs /bin/true" "-n $batch -- $G /bin/true"
	"floor: + file, no sync" "-n $batch -- $F -nosync $W/floor-nosync.json /bin/true"
	"floor: + file, fdatasync" "-n $batch -- $F $W/floor.json /bin/true")
[ -n "$url" ] && args+=("redis, success" "-n $batch -- $R run -q --state $url/ok -- /bin/true"
	"redis, retry scheduled" "-n $batch -- $R run -q --state $url/fail $fail")
[ -n "$old" ] && args+=("old: plain" "-n $batch -- $old run -q -- /bin/true"
	"old: file, success" "-n $batch -- $old run -q --state $W/old.json -- /bin/true"
	"old: file, retry scheduled" "-n $batch -- $old run -q --state $W/oldfail.json $fail")
interleave "${args[@]}"

echo "retry run -q -- /bin/true with and without --state: median of $rounds interleaved rounds of $batch invocations, per invocation"
for name in plain "file, success" "file, retry scheduled" "redis, success" "redis, retry scheduled" "old: plain" "old: file, success" "old: file, retry scheduled" "floor: Go runs /bin/true" "floor: + file, no sync" "floor: + file, fdatasync"; do
	[ -n "${c[$name]:-}" ] || continue
	base=plain
	[[ $name == old:* ]] && base="old: plain"
	[[ $name == floor:* ]] && base="floor: Go runs /bin/true"
	printf '  %-28s %s   %s× CPU  %s× wall\n' "$name" "$(row "$name" "$batch")" "$(ratio "${c[$name]}" "${c[$base]}")" "$(ratio "${t[$name]}" "${t[$base]}")"
done
f0=${c["floor: Go runs /bin/true"]} f1=${c["floor: + file, no sync"]} f2=${c["floor: + file, fdatasync"]}
echo "the contract's floor, per invocation: the file alone $(ms "$(awk -v a="$f1" -v b="$f0" 'BEGIN {print a - b}')" "$batch") ms CPU, the fdatasync alone $(ms "$(awk -v a="$f2" -v b="$f1" 'BEGIN {print a - b}')" "$batch") ms; both over retry's plain run: $(ratio "$(awk -v p="${c[plain]}" -v a="$f2" -v b="$f0" 'BEGIN {print p + a - b}')" "${c[plain]}")×; retry's own: $(ratio "${c["file, success"]}" "${c[plain]}")×"
loadline

if command -v strace >/dev/null; then
	syncs() { strace -f -qq -e trace=fsync,fdatasync,sync_file_range -o "$W/st" "$@" >/dev/null 2>&1 || true; grep -c 'sync' "$W/st" || true; }
	echo "sync calls per invocation:"
	echo "  file, success:         $(syncs "$R" run -q --state "$W/s1.json" -- /bin/true)${old:+  (old: $(syncs "$old" run -q --state "$W/s2.json" -- /bin/true))}"
	echo "  file, retry scheduled: $(syncs "$R" run -q --state "$W/s3.json" -n 0 --backoff constant -d 1ms -- /bin/false)${old:+  (old: $(syncs "$old" run -q --state "$W/s4.json" -n 0 --backoff constant -d 1ms -- /bin/false))}"
	# The calls whose arguments name the state's directory or a descriptor
	# of a file in it (strace -y), in order, but retry's own execve.
	calls() {
		mkdir -p "$W/$1"
		strace -f -qq -y -o "$W/st" "${@:2}" >/dev/null 2>&1 || true
		grep -F "$W/$1" "$W/st" | sed -E 's/^[0-9]+ +//' | grep -v -e '^<\.\.\.' -e '^execve' | sed -E 's/\(.*//' | tr '\n' ' '
	}
	echo "system calls on the state, file, success:"
	echo "  $(calls c1 "$R" run -q --state "$W/c1/s.json" -- /bin/true)"
	[ -n "$old" ] && echo "  old: $(calls c2 "$old" run -q --state "$W/c2/s.json" -- /bin/true)"
fi
