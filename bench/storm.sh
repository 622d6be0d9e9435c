#!/usr/bin/env bash
# Retry storm: N concurrent `retry run --url` clients (default 200), each
# needing one success, against a local service (bench/stormserver) that
# admits RATE requests a second (burst RATE) and answers beyond it with 429
# + ThrottlingException (profile 429), a bare 503 (profile 503) or S3's 503
# SlowDown (profile slowdown). Every mode below runs against each profile,
# interleaved, for ROUNDS rounds; the table gives medians of: requests the
# server saw, goodput (successes/requests), clients that succeeded, time
# from the release of the clients until the last one finished, the request
# rate the server saw, the spread of the clients' first requests (from the
# server's GET /timeline), the spread of the clients' starts (the "started"
# of each client's --report), and the CPU (user+sys) of all the clients
# together.
#
# The clients are released together: each is a shell blocked reading a
# FIFO that the script holds open; once all N are waiting, closing it lets
# them all exec retry at once. Even so, starting N processes takes time on
# a busy machine: a storm whose clients' starts spread over more than a
# second is marked "no storm" (its clients did not overlap enough to test
# anything), and left out of the medians when other rounds remain. (The
# first requests themselves spread further in the modes that pace them:
# adaptive clients that start after the first throttle wait for the
# scope's rate before their first request.)
#
# Modes with "redis" use a local redis-server (skipped when it is not
# installed).
# Usage: bench/storm.sh [ROUNDS] [N] [RATE]
# Environment: MODES, a regexp of the mode names to run (all by default);
# PROFILES, the profiles (default "429 503"); CLIENT_ARGS, more flags for
# every client (e.g. --throttle-delay 1s). Each storm's GET /timeline is
# kept in bench/out/storm-timeline-PROFILE-MODE-ROUND.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} n=${2:-200} rate=${3:-10}
profiles=${PROFILES:-429 503}
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" . && CGO_ENABLED=0 go build -o "$out/stormserver" ./bench/stormserver
R=$PWD/$out/retry
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
export RETRY_STATE_DIR=$work/state
load() { cut -d' ' -f1-3 /proc/loadavg; }
load_start=$(load)

declare -A url
for profile in $profiles; do
	"$out/stormserver" -rate "$rate" -burst "$rate" -profile "$profile" >"$work/url$profile" &
	pids+=($!)
done
for profile in $profiles; do
	for _ in $(seq 100); do [ -s "$work/url$profile" ] && break; sleep 0.05; done
	url[$profile]=$(cat "$work/url$profile")
done

modes=("off|--mode off" "scope|--scope s" "scope adaptive|--scope s --mode adaptive" "scope wait|--scope s --when-empty wait"
	"adaptive 503 throttles|--scope s --mode adaptive --throttle-status 503")
if command -v redis-server >/dev/null; then
	port=$((20000 + RANDOM % 20000))
	redis-server --bind 127.0.0.1 --port "$port" --dir "$work" --save '' --appendonly no >/dev/null &
	pids+=($!)
	store=redis://127.0.0.1:$port
	for _ in $(seq 100); do "$R" scope list --scope-store "$store" >/dev/null 2>&1 && break; sleep 0.05; done
	modes+=("redis scope|--scope s --scope-store $store" "redis adaptive|--scope s --mode adaptive --scope-store $store" "redis wait|--scope s --when-empty wait --scope-store $store")
fi

if [ -n "${MODES:-}" ]; then
	kept=()
	for m in "${modes[@]}"; do [[ ${m%%|*} =~ $MODES ]] && kept+=("$m"); done
	modes=("${kept[@]}")
fi

# cpu FILE: writes the user+sys seconds of this shell's waited-for children
# so far to FILE (times is a builtin: no subshell, whose children differ).
cpu() { times >"$1.times"; awk 'NR == 2 {for (i = 1; i <= 2; i++) {split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2]}; print t}' "$1.times" >"$1"; }

# storm PROFILE ARGS...: one storm; prints requests, goodput, succeeded,
# seconds, rps, spread of the first requests (s), CPU of the clients (s).
storm() {
	local profile=$1; shift
	local u=${url[$profile]}
	"$R" run -q -n 1 --mode off -X POST --url "$u/reset" >/dev/null
	rm -rf "$RETRY_STATE_DIR" "$work/ready" "$work/gate" "$work/reports"
	mkdir -p "$work/ready" "$work/reports"
	[ -n "${store:-}" ] && "$R" scope reset s --scope-store "$store" >/dev/null 2>&1 || true
	mkfifo "$work/gate"
	exec 3<>"$work/gate" # held open: the clients' reads block until it closes
	local s e ok=0 i c0 c1
	local -a cs=()
	cpu "$work/cpu0"
	for i in $(seq "$n"); do
		# shellcheck disable=SC2086,SC2016
		sh -c ': > "$1/ready/$2"; read -r _ < "$1/gate"; shift 2; exec "$@"' sh "$work" "$i" \
			"$R" run -q -n 20 --stdout final --report "$work/reports/$i.json" --url "$u/api?c=$i" "$@" ${CLIENT_ARGS:-} >/dev/null 2>&1 3>&- &
		cs+=($!)
	done
	for _ in $(seq 2400); do # at most 2 minutes for the clients to reach the gate
		[ "$(find "$work/ready" -type f | wc -l)" -lt "$n" ] || break
		sleep 0.05
	done
	sleep 0.2 # the last ones from their ready file to their read
	s=$EPOCHREALTIME
	exec 3>&- # the gate: every client reads end-of-file at once
	for i in "${cs[@]}"; do wait "$i" && ok=$((ok + 1)) || true; done
	e=$EPOCHREALTIME
	cpu "$work/cpu1"
	local stats spread starts
	starts=$(cat "$work"/reports/*.json 2>/dev/null | sed -n 's/.*"started": *"\([^"]*\)".*/\1/p' | python3 -c '
import sys, datetime
def t(s):
    whole, _, frac = s.strip().rstrip("Z").partition(".")
    return datetime.datetime.fromisoformat(whole + "+00:00").timestamp() + float("0." + (frac or "0"))
ts = [t(l) for l in sys.stdin if l.strip()]
print("%.2f" % (max(ts) - min(ts) if ts else -1))')
	stats=$("$R" run -q -n 1 --mode off --url "$u/stats")
	"$R" run -q -n 1 --mode off --url "$u/timeline" >"$work/timeline"
	spread=$(awk '$3 != "-" && !($3 in first) {first[$3] = $1} END {lo = -1; for (c in first) {if (lo < 0 || first[c] < lo) lo = first[c]; if (first[c] > hi) hi = first[c]}; printf "%.2f", (hi - lo) / 1000}' "$work/timeline")
	local req succ rps
	req=$(sed 's/.*"requests":\([0-9]*\).*/\1/' <<<"$stats")
	succ=$(sed 's/.*"successes":\([0-9]*\).*/\1/' <<<"$stats")
	rps=$(sed 's/.*"rps":\([0-9.e+-]*\).*/\1/' <<<"$stats")
	awk -v r="$req" -v g="$succ" -v ok="$ok" -v s="$s" -v e="$e" -v rps="$rps" -v sp="$spread" -v st="$starts" -v c="$(awk 'NR == FNR {a = $1; next} {print $1 - a}' "$work/cpu0" "$work/cpu1")" \
		'BEGIN {printf "%d %.2f %d %.1f %.1f %.2f %.2f %.1f\n", r, g / r, ok, e - s, rps, sp, st, c}'
}

results=$work/results
for round in $(seq "$rounds"); do
	for profile in $profiles; do
		for m in "${modes[@]}"; do
			name=${m%%|*} args=${m#*|}
			# shellcheck disable=SC2086
			echo "$profile|$name|$(storm "$profile" $args)" >>"$results"
			cp "$work/timeline" "$out/storm-timeline-$profile-${name// /-}-$round.txt"
			echo "round $round, profile $profile, $name: $(tail -1 "$results" | cut -d'|' -f3)" >&2
		done
	done
done

med() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "$n clients released together, each retry run -n 20 --url ${CLIENT_ARGS:-(default delays)}, server admits $rate req/s; median of $rounds rounds"
echo "(ideal time N/RATE = $((n / rate)) s; \"no storm\": the clients' starts spread over more than 1 s in every round)"
printf '| profile | mode | requests | goodput | clients ok | time (s) | server req/s | first requests spread (s) | starts spread (s) | clients CPU (s) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for profile in $profiles; do
	for m in "${modes[@]}"; do
		name=${m%%|*}
		rows=$(grep "^$profile|$name|" "$results" | cut -d'|' -f3)
		stormy=$(awk '$7 >= 0 && $7 <= 1' <<<"$rows")
		label=$name
		if [ -z "$stormy" ]; then label="$name (no storm)"; else rows=$stormy; fi
		printf '| %s | %s' "$profile" "$label"
		for col in 1 2 3 4 5 6 7 8; do printf ' | %s' "$(awk -v c=$col '{print $c}' <<<"$rows" | med)"; done
		printf ' |\n'
	done
done
echo "load average (1/5/15 min): $load_start at the start, $(load) at the end"
