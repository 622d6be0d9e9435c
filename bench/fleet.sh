#!/usr/bin/env bash
# Fleet: N retry processes share one scope on one Redis primary, and on a
# Redis Cluster (3 primaries, 3 replicas), beside the same N without a
# scope (plain). Each process runs a command that fails its first attempt
# and succeeds its second (`-n 3 -d 0`): one retry paid from the scope's
# bucket, the success refunding it. They run WAVE at a time (xargs -P), N =
# 50, 200 and 1000 by default: what a 2-core machine shared with others
# can start, not N at the same instant. For each topology and N it prints
#
#   attempts        the attempts made (a process whose retry the bucket
#                   could not pay stops after one)
#   sent/attempt    the commands clients sent to the Redis primaries (INFO
#                   commandstats summed over the primaries, CONFIG
#                   RESETSTAT before: HELLO, EVALSHA, EVAL, CLUSTER
#                   SLOTS…), per attempt
#   in script       the commands retry's scripts called inside those (TIME,
#                   HMGET, HSET, PEXPIRE), per attempt
#   cmd µs/att      the servers' own time in the commands sent
#                   (commandstats usec), per attempt
#   CPU µs/att      user+sys of every redis-server, replicas included
#                   (/proc/PID/stat, clock ticks of 10 ms) per attempt:
#                   commands, connections, replication, the cluster bus
#   p50, p99        the wall time of one process divided by its attempts,
#                   in milliseconds; the "added" columns subtract the
#                   plain run's p50 and p99 of the same N (on a loaded
#                   machine, wall time is mostly the scheduler's)
#   CPU ms          the median user+sys of one process (wait4's rusage,
#                   bench/rusage) over its attempts, and what the scope
#                   adds to the plain run's
#
# and the load average. The cost per attempt on the server is what sizes a
# primary: one Redis primary runs scripts on one core.
# Usage: bench/fleet.sh [SIZES] [WAVE]   (SIZES: "50 200 1000", WAVE: 8)
# The servers' INFO commandstats of each run are kept in
# bench/out/fleet-commandstats-TOPOLOGY-N.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-50 200 1000} wave=${2:-8}
out=bench/out; mkdir -p "$out"
rounds=1
. bench/lib.sh
build "$out/retry" .
R=$PWD/$out/retry
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || { echo "fleet: needs redis-server and redis-cli (apt-get install redis-server redis-tools)" >&2; exit 1; }
work=$(mktemp -d)
# The servers' pids are in $work/*/pid: the trap kills those, by pid.
trap 'for f in "$work"/*/pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done; rm -rf "$work"' EXIT
export RETRY_STATE_DIR=$work/state

# node DIR ARGS...: a redis-server on a free port of 127.0.0.1; prints its
# port, its pid in DIR/pid.
node() {
	local dir=$1 port; shift
	mkdir -p "$dir"
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 30000))
		# (its output elsewhere: $(node) reads until every writer is gone)
		redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no --logfile "$dir/log" "$@" >/dev/null 2>&1 &
		local pid=$!
		echo "$pid" >"$dir/pid"
		for _ in $(seq 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && { echo "$port"; return; }; kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
		kill -9 "$pid" 2>/dev/null || true
	done
	echo "fleet: redis-server did not start" >&2; exit 1
}

single_port=$(node "$work/single")
single_ports=$single_port
cluster_ports=""
for i in 0 1 2 3 4 5; do
	cluster_ports+="$(node "$work/cluster$i" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000) "
done
addrs=""; for p in $cluster_ports; do addrs+="127.0.0.1:$p "; done
redis-cli --cluster create $addrs --cluster-replicas 1 --cluster-yes >/dev/null
for p in $cluster_ports; do
	until redis-cli -p "$p" cluster info | grep -q 'cluster_state:ok'; do sleep 0.05; done
done
set -- $cluster_ports
declare -A store=([single]="redis://127.0.0.1:$single_port" [cluster]="redis+cluster://127.0.0.1:$1,127.0.0.1:$2")
declare -A ports=([single]=$single_ports [cluster]=$cluster_ports)

# calls PORTS: what the primaries counted since CONFIG RESETSTAT, the
# bench's own (info, config) left out: "ROUNDTRIPS INSCRIPT USEC" — the
# commands clients sent (HELLO, EVALSHA, EVAL, CLUSTER SLOTS, …), the
# commands retry's scripts called inside them (TIME, HMGET, HSET,
# PEXPIRE), and the microseconds the servers spent on the first.
calls() {
	local p
	for p in $1; do
		# A replica counts what it replays (MULTI, HSET, EXEC): primaries only.
		redis-cli -p "$p" info replication | grep -q '^role:master' && redis-cli -p "$p" info commandstats
	done | tr -d '\r' | awk -F'[:=,]' '
		/^cmdstat_/ && $1 !~ /^cmdstat_(info|config|ping)$/ {
			if ($1 ~ /^cmdstat_(time|hmget|hset|hgetall|pexpire|exists|get|set|del|type|pttl)$/) inner += $3
			else { top += $3; usec += $5 }
		}
		END {print top + 0, inner + 0, usec + 0}'
}
# cpu DIRS: user+sys clock ticks of the redis-servers whose pids the dirs hold.
cpu() {
	local d n=0
	for d in $1; do n=$((n + $(awk '{print $14 + $15}' "/proc/$(cat "$d/pid")/stat"))); done
	echo "$n"
}
tick=$(getconf CLK_TCK)

printf 'fleet: WAVE=%s at a time; load at start %s\n' "$wave" "$load_start"
printf '%-8s %5s %8s %12s %10s %11s %11s %7s %7s %10s %10s %7s %10s\n' topology N attempts sent/attempt "in script" "cmd µs/att" "CPU µs/att" "p50 ms" "p99 ms" "p50 added" "p99 added" "CPU ms" "CPU added"
for n in $sizes; do
	declare -A p50 p99 c50
	for topo in plain single cluster; do
		dir=$work/$topo.$n; mkdir -p "$dir"
		args=""
		[ "$topo" = plain ] || args="--scope fleet --scope-store ${store[$topo]}"
		dirs=""
		if [ "$topo" != plain ]; then
			for p in ${ports[$topo]}; do redis-cli -p "$p" config resetstat >/dev/null; done
			[ "$topo" = single ] && dirs=$work/single || dirs=$(echo "$work"/cluster[0-5])
			cflag=""; [ "$topo" = cluster ] && cflag=-c
			redis-cli $cflag -p "${ports[$topo]%% *}" del retry:scope:fleet >/dev/null
			for p in ${ports[$topo]}; do redis-cli -p "$p" config resetstat >/dev/null; done
			cpu0=$(cpu "$dirs")
		fi
		export R RUSAGE dir args
		seq "$n" | xargs -P "$wave" -I{} sh -c '"$RUSAGE" -o "$dir/{}.t" "$R" run -q $args -n 3 -d 0 -- sh -c '\''echo >> "$0"; [ "$(wc -l < "$0")" -ge 2 ]'\'' "$dir/{}.a" >/dev/null 2>&1 || true'
		attempts=$(cat "$dir"/*.a | wc -l)
		# Per process: wall seconds over its attempts, sorted.
		for i in $(seq "$n"); do
			awk -v a="$(wc -l <"$dir/$i.a")" '{print $1 / a * 1000, ($2 + $3) / a * 1000}' "$dir/$i.t"
		done >"$dir/per"
		q() { cut -d' ' -f"$1" "$dir/per" | sort -g | awk -v q="$2" '{v[NR] = $1} END {i = int(NR * q + 0.999999); if (i < 1) i = 1; printf "%.2f", v[i]}'; }
		p50[$topo]=$(q 1 0.50) p99[$topo]=$(q 1 0.99) c50[$topo]=$(q 2 0.50)
		if [ "$topo" = plain ]; then
			printf '%-8s %5s %8s %12s %10s %11s %11s %7s %7s %10s %10s %7s %10s\n' "$topo" "$n" "$attempts" - - - - "${p50[$topo]}" "${p99[$topo]}" - - "${c50[$topo]}" -
			continue
		fi
		read -r top inner usec <<<"$(calls "${ports[$topo]}")"
		for p in ${ports[$topo]}; do redis-cli -p "$p" info commandstats; done >"$out/fleet-commandstats-$topo-$n.txt"
		cpu1=$(cpu "$dirs")
		printf '%-8s %5s %8s %12.2f %10.2f %11.1f %11.1f %7s %7s %10.2f %10.2f %7s %10.2f\n' "$topo" "$n" "$attempts" \
			"$(echo "$top / $attempts" | bc -l)" "$(echo "$inner / $attempts" | bc -l)" "$(echo "$usec / $attempts" | bc -l)" \
			"$(echo "($cpu1 - $cpu0) / $tick * 1000000 / $attempts" | bc -l)" \
			"${p50[$topo]}" "${p99[$topo]}" "$(echo "${p50[$topo]} - ${p50[plain]}" | bc -l)" "$(echo "${p99[$topo]} - ${p99[plain]}" | bc -l)" \
			"${c50[$topo]}" "$(echo "${c50[$topo]} - ${c50[plain]}" | bc -l)"
	done
done
printf 'load at end %s\n' "$(load)"
