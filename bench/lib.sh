# Shared by the bench/ scripts; source it after setting $rounds.

# median CMD...: runs CMD $rounds times (output discarded, failure ignored)
# and prints the median wall-clock time in seconds.
median() {
	local -a ts=()
	for _ in $(seq "$rounds"); do
		local s e
		s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
		ts+=("$(awk -v e="$e" -v s="$s" 'BEGIN {printf "%.6f", e - s}')")
	done
	printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
