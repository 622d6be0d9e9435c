#!/usr/bin/env bash
# Final output: an attempt that writes SIZE MiB (default 64) to stdout,
# 3 runs per round, through
#   retry run -q --stdout final -- cat FILE   (kept, then written at the end)
#   retry run -q --stdout live -- cat FILE    (passed through as it comes)
#   sh -c 'cat FILE | cat'                    (a shell pipe: the floor)
#   sh -c 'cat FILE | cat > TMP; cat TMP; rm TMP'  (store and forward,
#       as final mode must: the pipe kept in a temporary file, then written)
#   bench/storefloor pass|file|memfd  (the floors of a Go program: the pipe
#       passed through; kept in an unlinked TMPDIR file with splice(2) and
#       written with sendfile(2), as final mode does; the same in a memfd)
# each with its stdout a pipe to `cat >/dev/null`, as in a pipeline
# (the reader's cost is in every row alike). CPU (user+sys of the whole
# tree) beside wall time, medians of ROUNDS interleaved rounds; the output
# of final mode is checked byte-exact first.
# Usage: bench/final.sh [ROUNDS] [SIZE_MIB] [OLD_RETRY_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11} size=${2:-64} old=${3:-}
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" .
CGO_ENABLED=0 go build -o "$out/storefloor" ./bench/storefloor
R=$PWD/$out/retry S=$PWD/$out/storefloor
f=$PWD/$out/final-$size.bin
[ "$(stat -c %s "$f" 2>/dev/null || echo 0)" = $((size << 20)) ] || head -c $((size << 20)) /dev/urandom > "$f"
"$R" run -q --stdout final -- cat "$f" | cmp - "$f" || { echo "final mode's output differs from the file"; exit 1; }
. bench/lib.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/final.XXXX")
trap 'rm -rf "$tmp"' EXIT
declare -A label

args=(pipe "-n 3 -- sh -c 'cat $f | cat | cat >/dev/null'"
	store "-n 3 -- sh -c 'cat $f | cat > $tmp/x; cat $tmp/x | cat >/dev/null; rm $tmp/x'"
	final "-n 3 -- sh -c '$R run -q --stdout final -- cat $f | cat >/dev/null'"
	live "-n 3 -- sh -c '$R run -q --stdout live -- cat $f | cat >/dev/null'"
	gopass "-n 3 -- sh -c 'cat $f | $S pass | cat >/dev/null'"
	gofile "-n 3 -- sh -c 'cat $f | $S file | cat >/dev/null'"
	gomemfd "-n 3 -- sh -c 'cat $f | $S memfd | cat >/dev/null'")
[ -n "$old" ] && args+=(old "-n 3 -- sh -c '$old run -q --stdout final -- cat $f | cat >/dev/null'")
interleave "${args[@]}"
echo "$size MiB through each, 3 runs per round, median of $rounds interleaved rounds, per run:"
label=([pipe]="sh -c 'cat f | cat'" [store]="the same through a file" [final]="retry --stdout final" [live]="retry --stdout live" [old]="$old --stdout final"
	[gopass]="storefloor pass" [gofile]="storefloor file" [gomemfd]="storefloor memfd")
for name in pipe store final live gopass gofile gomemfd ${old:+old}; do
	printf '  %-24s %s\n' "${label[$name]}" "$(row "$name" 3)"
done
echo "CPU ratio final/pipe $(ratio "${c[final]}" "${c[pipe]}")x, final/store $(ratio "${c[final]}" "${c[store]}")x, final/live $(ratio "${c[final]}" "${c[live]}")x${old:+, old-final/pipe $(ratio "${c[old]}" "${c[pipe]}")x}"
echo "floors: storefloor file/pipe $(ratio "${c[gofile]}" "${c[pipe]}")x, file/pass $(ratio "${c[gofile]}" "${c[gopass]}")x, memfd/file $(ratio "${c[gomemfd]}" "${c[gofile]}")x; final/storefloor file $(ratio "${c[final]}" "${c[gofile]}")x"
loadline
