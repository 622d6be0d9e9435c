#!/usr/bin/env bash
# The cost of redacting what retry repeats: a retried attempt's stdout,
# replayed on stderr (--stdout final), for 3 attempts of a 1 MiB web log:
#   retry run -n 3 -d 0 --stdout final -- sh -c 'cat LOG; exit 1'
# by this build against the same build made with -tags retry_noredact
# (cmd/internal/echo: the echo writes its bytes unredacted; no flag or
# variable does that), interleaved round by round, on two logs: a plain
# access log (no secret word; a referrer URL on every line) and the same
# log whose every request carries a secret-named parameter (session_id=N).
# Target (SPEC, revisions of 2026-11-28): ≤ 1.3× the CPU without redaction.
# Usage: bench/redact.sh [ROUNDS] [OLD_RETRY_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11}
out=bench/out; mkdir -p "$out"
. bench/lib.sh
build "$out/retry" .
CGO_ENABLED=0 go build -tags retry_noredact -o "$out/retry-noredact.link" . && cp "$out/retry-noredact.link" "$out/retry-noredact" && rm -f "$out/retry-noredact.link"
R=$PWD/$out/retry
N=$PWD/$out/retry-noredact
for kind in plain secret; do
	python3 - "$out/redact-$kind.log" "$kind" <<'PY'
import sys
path, kind = sys.argv[1], sys.argv[2]
lines, n, i = [], 0, 0
while n < 1 << 20:
    q = "page=%d&sort=date" % (i % 50)
    if kind == "secret":
        q += "&session_id=%d" % (i * 7919 % 1000003)
    l = '203.0.113.%d - - [28/Nov/2026:13:%02d:%02d +0000] "GET /api/items?%s HTTP/1.1" 200 %d "https://shop.example.com/list?p=%d" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"\n' % (
        i % 254 + 1, i // 60 % 60, i % 60, q, 512 + i % 4096, i % 9)
    lines.append(l); n += len(l); i += 1
open(path, "w").write("".join(lines)[: 1 << 20])
PY
done
# The echo must hold what it should: session_id values hidden, the rest whole.
"$R" run -n 2 -d 0 --stdout final -- sh -c "cat $out/redact-secret.log; exit 1" 2>"$out/redact.err" >/dev/null || true
if grep -q 'session_id=[0-9]' "$out/redact.err" || ! grep -q 'session_id=REDACTED' "$out/redact.err"; then echo "the echo did not redact"; exit 1; fi
args=()
for kind in plain secret; do
	args+=("$kind" "-- $R run -n 3 -d 0 --stdout final -- sh -c 'cat $out/redact-$kind.log; exit 1'")
	args+=("$kind-off" "-- $N run -n 3 -d 0 --stdout final -- sh -c 'cat $out/redact-$kind.log; exit 1'")
	if [ -n "${2:-}" ]; then args+=("$kind-old" "-- $2 run -n 3 -d 0 --stdout final -- sh -c 'cat $out/redact-$kind.log; exit 1'"); fi
done
interleave "${args[@]}"
echo "retry run -n 3 --stdout final of a 1 MiB access log (2 attempts replayed), median of $rounds interleaved rounds:"
for kind in plain secret; do
	printf '  %-34s %s\n' "$kind: redacted" "$(row "$kind")" "$kind: without redaction" "$(row "$kind-off")"
	if [ -n "${2:-}" ]; then printf '  %-34s %s\n' "$kind: $(basename "$2")" "$(row "$kind-old")"; fi
	echo "  $kind: CPU ratio redacted/without: $(ratio "${c[$kind]}" "${c[$kind-off]}")x"
	if [ -n "${2:-}" ]; then echo "  $kind: CPU ratio $(basename "$2")/without: $(ratio "${c[$kind-old]}" "${c[$kind-off]}")x"; fi
done
loadline
