# Shared by the bench/ scripts; source it after setting $rounds.
#
# Tools are timed round by round: each round runs every tool once, in an
# order that rotates from round to round, so that a change in the machine's
# load hits every tool alike. Medians over the rounds are reported, and
# ratios are taken between medians of the same run.

# interleave NAME CMD [NAME CMD]...: runs each CMD (a shell string, eval'd,
# output discarded, failure ignored) once per round for $rounds rounds, the
# order rotated each round, and sets t[NAME] to the median wall-clock time
# in seconds. Timing uses $EPOCHREALTIME: no process is started to read the
# clock.
declare -A t
interleave() {
	local -a names=() cmds=()
	while [ $# -gt 0 ]; do names+=("$1"); cmds+=("$2"); shift 2; done
	local k=${#names[@]} r j i s e
	local -A samples=()
	for ((r = 0; r < rounds; r++)); do
		for ((j = 0; j < k; j++)); do
			i=$(((j + r) % k))
			s=$EPOCHREALTIME
			eval "${cmds[$i]}" >/dev/null 2>&1 || true
			e=$EPOCHREALTIME
			samples[$i]+="$(awk -v s="$s" -v e="$e" 'BEGIN {printf "%.6f", e - s}') "
		done
	done
	for ((i = 0; i < k; i++)); do
		# shellcheck disable=SC2086
		t[${names[$i]}]=$(printf '%s\n' ${samples[$i]} | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	done
}

# ratio A B: A/B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

# median CMD...: runs CMD $rounds times (output discarded, failure ignored)
# and prints the median wall-clock time in seconds. For a tool timed alone;
# tools compared with each other go through interleave.
median() {
	local -a ts=()
	local s e
	for _ in $(seq "$rounds"); do
		s=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; e=$EPOCHREALTIME
		ts+=("$(awk -v e="$e" -v s="$s" 'BEGIN {printf "%.6f", e - s}')")
	done
	printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
