#!/usr/bin/env bash
# Readiness: how long after a service comes up each tool notices, how many
# requests it made meanwhile, and its CPU (user+sys of the tool and its
# children, from bash's `time`), interleaved round by round. The service
# (bench/listener) comes up after a random 3-10 s, the same for every tool
# of a round; as HTTP it answers 503 until then (a service behind a proxy,
# still starting: every request is counted), as TCP it refuses connections.
#   HTTP: retry wait --url (its readiness defaults), wait-on (npm; polls
#         every 250 ms), a curl loop with `sleep 1`
#   TCP:  retry wait --tcp, wait-for-it (Debian's; polls every second),
#         wait-on tcp:
# Tools that are not installed are left out. Usage: bench/readiness.sh [ROUNDS]
# (RETRY_BIN=path measures another retry binary).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
out=bench/out; mkdir -p "$out"
go build -o "$out/listener" ./bench/listener
if [ -z "${RETRY_BIN:-}" ]; then
	CGO_ENABLED=0 go build -o "$out/retry" .
	RETRY_BIN=$PWD/$out/retry
fi
R=$RETRY_BIN
names=() kinds=() cmds=()
add() { names+=("$1"); kinds+=("$2"); cmds+=("$3"); }
add "retry wait --url" http '$R wait -q --max-time 60s --url http://127.0.0.1:$port/'
command -v wait-on >/dev/null && add "wait-on http" http 'wait-on -t 60000 http://127.0.0.1:$port/'
add "curl loop (1 s)" http 'until curl -fs -o /dev/null http://127.0.0.1:$port/; do sleep 1; done'
add "retry wait --tcp" tcp '$R wait -q --max-time 60s --tcp 127.0.0.1:$port'
command -v wait-for-it >/dev/null && add "wait-for-it" tcp 'wait-for-it -q -t 60 127.0.0.1:$port'
command -v wait-on >/dev/null && add "wait-on tcp" tcp 'wait-on -t 60000 tcp:127.0.0.1:$port'
k=${#names[@]}
declare -A late reqs cpu
TIMEFORMAT='%3U %3S'
for ((r = 0; r < rounds; r++)); do
	delay=$(awk -v s="$RANDOM" 'BEGIN {srand(s); printf "%.3f", 3 + 7 * rand()}')
	for ((j = 0; j < k; j++)); do
		i=$(((j + r) % k))
		if [ "${kinds[$i]}" = http ]; then
			coproc L { exec "$out/listener" "${delay}s" http; }
		else
			coproc L { exec "$out/listener" "${delay}s"; }
		fi
		lpid=$L_PID
		read -r port <&"${L[0]}"
		exec 4<&"${L[0]}"
		used=$({ time { eval "${cmds[$i]}" >/dev/null 2>&1 || true; }; } 2>&1)
		end=$EPOCHREALTIME
		read -r _ upat <&4
		kill -TERM "$lpid" 2>/dev/null || true
		n=-
		if [ "${kinds[$i]}" = http ]; then read -r _ n <&4 || n=-; fi
		wait "$lpid" 2>/dev/null || true
		exec 4<&-
		late[$i]+="$(awk -v e="$end" -v u="$upat" 'BEGIN {printf "%.3f", e - u}') "
		reqs[$i]+="$n "
		cpu[$i]+="$(awk -v u="${used% *}" -v s="${used#* }" 'BEGIN {printf "%.3f", u + s}') "
	done
done
med() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "readiness: $rounds rounds, service up after 3-10 s (random per round); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| %-18s | %-22s | %-16s | %-14s |\n' tool "up → noticed (median)" "requests (median)" "CPU (median)"
printf '|%s|%s|%s|%s|\n' "--------------------" "------------------------" "------------------" "----------------"
for ((i = 0; i < k; i++)); do
	printf '| %-18s | %-22s | %-16s | %-14s |\n' "${names[$i]}" "$(med "${late[$i]}") s" "$(med "${reqs[$i]}")" "$(med "${cpu[$i]}") s"
done
