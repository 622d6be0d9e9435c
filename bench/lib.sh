# Shared by the bench/ scripts; source it after setting $rounds and $out
# (the build directory).
#
# Tools are timed round by round: each round runs every tool once, in an
# order that rotates from round to round, so that a change in the machine's
# load hits every tool alike. Medians over the rounds are reported, and
# ratios are taken between medians of the same run.
#
# Every run goes through bench/rusage, which reports the wall time and the
# CPU time (user+sys, from wait4's rusage of the whole process tree), the
# peak RSS and the page faults. On a machine shared with other jobs the CPU
# time is the figure to compare: load barely moves it, while wall time then
# mostly measures the scheduler.

CGO_ENABLED=0 go build -o "$out/rusage" ./bench/rusage
RUSAGE=$PWD/$out/rusage

# build BINARY PACKAGE: go build, then a copy of the result, which is what
# a script times: the linker writes its output through mmap, and a binary
# as it left it costs more CPU at every start than the same bytes written
# by cp (bench/startup.sh measured 0.2 to 1.0 ms a start); an installed
# binary is a copy. An older binary given to a script is timed as a copy
# too (copy).
build() { CGO_ENABLED=0 go build -o "$1.link" "$2" && cp "$1.link" "$1" && rm -f "$1.link"; }

# copy BINARY NAME: a copy of BINARY in the build directory; prints its path.
copy() { cp "$1" "$out/$2" && echo "$PWD/$out/$2"; }

# load: the load averages now (1, 5 and 15 minutes), as uptime gives them.
load() { cut -d' ' -f1-3 /proc/loadavg; }
load_start=$(load)

# interleave NAME ARGS [NAME ARGS]...: runs bench/rusage with each ARGS (a
# string eval'd as its arguments: "-- sh -c 'cat f | cat'", or
# "-n 20 -- $R run -q -- /bin/true" for a batch of 20 without a shell;
# output discarded, the command's failure ignored) once per round for
# $rounds rounds, the order rotated each round, and sets, for NAME, the
# medians over the rounds of: t[NAME] wall seconds, c[NAME] CPU seconds
# (user+sys), u[NAME] user, s[NAME] sys, m[NAME] peak RSS in KB, f[NAME]
# minor page faults. A -n batch gives sums: divide by the batch.
declare -A t c u s m f
interleave() {
	local -a names=() cmds=()
	while [ $# -gt 0 ]; do names+=("$1"); cmds+=("$2"); shift 2; done
	local k=${#names[@]} r j i line
	local -A samples=()
	local res=$out/rusage.line
	for ((r = 0; r < rounds; r++)); do
		for ((j = 0; j < k; j++)); do
			i=$(((j + r) % k))
			: > "$res"
			eval "\"\$RUSAGE\" -o \"\$res\" ${cmds[$i]}" >/dev/null 2>&1 || true
			read -r line < "$res" || line="0 0 0 0 0 0 -1"
			samples[$i]+="$line"$'\n'
		done
	done
	for ((i = 0; i < k; i++)); do
		local n=${names[$i]}
		t[$n]=$(_col 1 "${samples[$i]}")
		u[$n]=$(_col 2 "${samples[$i]}")
		s[$n]=$(_col 3 "${samples[$i]}")
		c[$n]=$(printf '%s' "${samples[$i]}" | awk '{print $2 + $3}' | _median)
		m[$n]=$(_col 4 "${samples[$i]}")
		f[$n]=$(_col 5 "${samples[$i]}")
	done
}

_median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
_col() { printf '%s' "$2" | awk -v c="$1" '{print $c}' | _median; }

# ratio A B: A/B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

# ms SECONDS [BATCH]: milliseconds per run, two decimals.
ms() { awk -v t="$1" -v n="${2:-1}" 'BEGIN {printf "%.2f", t * 1000 / n}'; }

# row NAME [BATCH]: "CPU ms  wall ms" of NAME, per run of the batch.
row() { printf '%9s ms CPU %9s ms wall' "$(ms "${c[$1]}" "${2:-1}")" "$(ms "${t[$1]}" "${2:-1}")"; }

# loadline: the load when the measuring started and now.
loadline() { echo "load average (1/5/15 min): $load_start at the start, $(load) at the end"; }

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
	printf '%s\n' "${ts[@]}" | _median
}
