#!/usr/bin/env bash
# Waiting for a TCP port that comes up after DELAY (default 2.1 s: not a
# multiple of any period, so the phase of the polls is not lucky): how long
# after the port is up each tool notices, and how many lines it writes on
# stderr, and the CPU it spent waiting (user+sys, bench/rusage), interleaved
# round by round:
#   - a wait-for-it style bash loop (wait-for-it.sh: /dev/tcp, `sleep 1`)
#   - the same loop with a 250 ms sleep
#   - retry run --tcp 127.0.0.1:PORT --backoff constant -d 250ms --jitter none
# Usage: bench/tcp.sh [ROUNDS] [DELAY]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
delay=${2:-2.1}
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" . && CGO_ENABLED=0 go build -o "$out/listener" ./bench/listener
CGO_ENABLED=0 go build -o "$out/rusage" ./bench/rusage
R=$PWD/$out/retry
export R out
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

names=("wait-for-it loop (1 s)" "bash loop (250 ms)" "retry --tcp (250 ms)")
cmds=(
	'while ! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>>$out/tcp.err; do sleep 1; done'
	'while ! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>>$out/tcp.err; do sleep 0.25; done'
	'$R run --tcp 127.0.0.1:$port -n 0 --max-time 60s --backoff constant -d 250ms --jitter none 2>>$out/tcp.err'
)
declare -A late lines cpu
for ((r = 0; r < rounds; r++)); do
	for ((j = 0; j < 3; j++)); do
		i=$(((j + r) % 3))
		: > "$out/tcp.err"
		coproc L { exec "$out/listener" "${delay}s"; }
		read -r port <&"${L[0]}"
		export port
		s=$EPOCHREALTIME
		"$out/rusage" -o "$out/tcp.rusage" -- bash -c "${cmds[$i]}"
		e=$EPOCHREALTIME
		kill "$L_PID"; wait "$L_PID" 2>/dev/null || true
		late[$i]+="$(awk -v s="$s" -v e="$e" -v d="$delay" 'BEGIN {printf "%.3f", (e - s - d) * 1000}') "
		lines[$i]+="$(wc -l < "$out/tcp.err") "
		cpu[$i]+="$(awk '{printf "%.2f", ($2 + $3) * 1000}' "$out/tcp.rusage") "
	done
done
med() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "port up after ${delay}s; median of $rounds interleaved rounds:"
for ((i = 0; i < 3; i++)); do
	printf '  %-26s noticed %7.1f ms after the port was up, %3s stderr lines, %6.1f ms CPU\n' "${names[$i]}" "$(med "${late[$i]}")" "$(med "${lines[$i]}")" "$(med "${cpu[$i]}")"
done
echo "load average (1/5/15 min): $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
