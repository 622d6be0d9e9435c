#!/usr/bin/env bash
# Retry storm: N concurrent `retry run --url` clients, each needing one
# success, against a local service (bench/stormserver) that admits RATE
# requests a second (burst RATE) and answers beyond it with 429 +
# ThrottlingException (profile 429) or 503 (profile 503). Every mode below
# runs against both profiles, interleaved, for ROUNDS rounds; the table
# gives medians of: requests the server saw, goodput (successes/requests),
# clients that succeeded, time until the last client finished, and the
# request rate the server saw. Modes with "redis" use a local
# redis-server (skipped when it is not installed).
# Usage: bench/storm.sh [ROUNDS] [N] [RATE]
# Environment: MODES, a regexp of the mode names to run (all by default);
# CLIENT_ARGS, more flags for every client (e.g. --throttle-delay 1s).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} n=${2:-50} rate=${3:-10}
out=bench/out; mkdir -p "$out"
go build -o "$out/retry" . && go build -o "$out/stormserver" ./bench/stormserver
R=$PWD/$out/retry
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
export RETRY_STATE_DIR=$work/state

declare -A url
for profile in 429 503; do
	"$out/stormserver" -rate "$rate" -burst "$rate" -profile "$profile" >"$work/url$profile" &
	pids+=($!)
done
for profile in 429 503; do
	for _ in $(seq 100); do [ -s "$work/url$profile" ] && break; sleep 0.05; done
	url[$profile]=$(cat "$work/url$profile")
done

modes=("off|--mode off" "scope|--scope s" "scope adaptive|--scope s --mode adaptive" "scope wait|--scope s --when-empty wait")
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

# storm PROFILE ARGS...: one storm; prints requests, goodput, succeeded,
# seconds, rps.
storm() {
	local profile=$1; shift
	local u=${url[$profile]}
	"$R" run -q -n 1 --mode off -X POST --url "$u/reset" >/dev/null
	rm -rf "$RETRY_STATE_DIR"
	[ -n "${store:-}" ] && "$R" scope reset s --scope-store "$store" >/dev/null 2>&1 || true
	local s e ok=0 i
	local -a cs=()
	s=$(date +%s.%N)
	for i in $(seq "$n"); do
		# shellcheck disable=SC2086
		"$R" run -q -n 20 --stdout final --url "$u/api" "$@" ${CLIENT_ARGS:-} >/dev/null 2>&1 &
		cs+=($!)
	done
	for i in "${cs[@]}"; do wait "$i" && ok=$((ok + 1)) || true; done
	e=$(date +%s.%N)
	local stats
	stats=$("$R" run -q -n 1 --mode off --url "$u/stats")
	local req succ rps
	req=$(sed 's/.*"requests":\([0-9]*\).*/\1/' <<<"$stats")
	succ=$(sed 's/.*"successes":\([0-9]*\).*/\1/' <<<"$stats")
	rps=$(sed 's/.*"rps":\([0-9.e+-]*\).*/\1/' <<<"$stats")
	awk -v r="$req" -v g="$succ" -v ok="$ok" -v s="$s" -v e="$e" -v rps="$rps" \
		'BEGIN {printf "%d %.2f %d %.1f %.1f\n", r, g / r, ok, e - s, rps}'
}

results=$work/results
for round in $(seq "$rounds"); do
	for profile in 429 503; do
		for m in "${modes[@]}"; do
			name=${m%%|*} args=${m#*|}
			# shellcheck disable=SC2086
			echo "$profile|$name|$(storm "$profile" $args)" >>"$results"
			echo "round $round, profile $profile, $name: $(tail -1 "$results" | cut -d'|' -f3)" >&2
		done
	done
done

med() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "$n clients, each retry run -n 20 --url ${CLIENT_ARGS:-(default delays)}, server admits $rate req/s; median of $rounds rounds"
printf '| profile | mode | requests | goodput | clients ok | time (s) | server req/s |\n|---|---|---:|---:|---:|---:|---:|\n'
for profile in 429 503; do
	for m in "${modes[@]}"; do
		name=${m%%|*}
		rows=$(grep "^$profile|$name|" "$results" | cut -d'|' -f3)
		printf '| %s | %s' "$profile" "$name"
		for col in 1 2 3 4 5; do printf ' | %s' "$(awk -v c=$col '{print $c}' <<<"$rows" | med)"; done
		printf ' |\n'
	done
done
