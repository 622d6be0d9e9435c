#!/usr/bin/env bash
# bench/hardening.sh RETRY_BINARY — the adversarial pass of issue 9, re-run:
# signals (INT, TERM, HUP, QUIT × plain, children, signal-ignoring,
# setsid), deep setsid chains, kill -9 of retry (ten shapes), a second
# signal, SIGTTIN, SIGSTOP, SIGTSTP, Ctrl-C on a shell loop;
# closed stdout/stderr pipes; unwritable TMPDIR and /dev/full; devices,
# FIFOs, directories and large files as inputs; the files retry writes
# (--report, --log-file) on links, devices and FIFOs; secrets in every sink;
# bad input. Prints cases tried and held per area; the BROKEN cases go to
# stderr. Each case runs under `timeout 40`; leftovers of a broken case are
# killed by their unique marker. Needs setsid, mkfifo, truncate, pgrep, perl.
R=$1
W=$(mktemp -d "${TMPDIR:-/tmp}/retry-hardening.XXXX"); cd "$W"
declare -A tried held
case_() { # area name: runs "$@" as the check (0 = held)
	local area=$1; shift
	tried[$area]=$(( ${tried[$area]:-0} + 1 ))
	if timeout 40 bash -c "$*" >/dev/null 2>&1; then held[$area]=$(( ${held[$area]:-0} + 1 )); else echo "BROKEN [$area] $*" >&2; fi
}
alive() { # marker: no process with MARK in its args survives (waits up to 12s: a supervisor has 10)
	local left
	for _ in $(seq 120); do
		pgrep -f "$1" > "$W/pg.$$"  # no pipeline: its forked halves would match
		left=$(grep -vx -e "$$" -e "$PPID" "$W/pg.$$")
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	kill -9 $left; return 1
}
export R W
export -f alive
n=0
# Markers survive exec: each case's processes sleep for a length of their
# own (sleep 77000NN), which stays in their argv whatever execs them; a
# comment after the command would be dropped by `exec`.
mark() { n=$((n+1)); m="sleep $((7700000 + n))"; }
# --- processes: signals x command shapes
for sig in INT TERM HUP QUIT; do
  for shape in plain kids ignore setsid; do
    mark
    case $shape in
      plain) cmd="exec $m";;
      kids) cmd="$m & $m & wait";;
      ignore) cmd="trap '' TERM INT HUP QUIT; $m & wait";;
      setsid) cmd="setsid sh -c 'trap \"\" TERM; $m' & wait";;
    esac
    num=$(kill -l $sig)
    case_ processes "$R run -n 3 -d 0 --kill-after 300ms --shell \"$cmd\" & p=\$!; sleep 0.5; kill -$sig \$p; wait \$p; [ \$? -eq $((128+num)) ] && alive '$m'"
  done
done
# deep setsid chains that ignore SIGTERM, still growing when the leader exits
for depth in 5 20 60; do
  mark
  printf 'trap "" TERM\nif [ "$1" -gt 0 ]; then setsid sh chain%s.sh $(($1 - 1)) & fi\nexec %s\n' "$n" "$m" > chain$n.sh
  case_ processes "$R run -n 1 --kill-after 100ms --shell 'setsid sh chain$n.sh $depth & sleep 1; exit 3' 2>err; ! grep -q 'left running' err && alive '$m'"
done
# kill -9 of retry, every shape (on Linux its supervisor ends them)
for shape in plain kids fanout ignore setsid doublefork nohup setpgid closedout envgroup; do
  mark
  case $shape in
    plain) body="exec $m";;
    kids) body="sh -c '$m & $m & wait' & $m & wait";;
    fanout) body="for i in 1 2 3 4 5 6 7 8 9 10; do $m & done; wait";;
    ignore) body="trap '' TERM INT HUP QUIT; sh -c \"trap '' TERM INT HUP QUIT; $m\" & $m & wait";;
    setsid) body="setsid sh -c \"trap '' TERM; $m\" & wait";;
    doublefork) body="($m &); exec $m";;
    nohup) body="nohup $m >/dev/null 2>&1 & wait";;
    setpgid) body="perl -e 'setpgrp(0, 0); exec qw($m)' & wait";;
    closedout) body="$m >&- 2>&- <&- & wait";;
    envgroup) body="env -i $m & wait";;
  esac
  printf '%s\n' "$body" > k9_$n.sh
  case_ processes "$R run -n 3 -- sh k9_$n.sh & p=\$!; sleep 0.5; kill -9 \$p; wait \$p; alive '$m'"
done
# kill -9 of the supervisor (another one replaces it), then of retry
mark
case_ processes "$R run -n 3 --shell '$m & $m & wait' & p=\$!; sup=; for i in \$(seq 100); do sup=\$(pgrep -P \$p -f __retry-supervisor) && break; sleep 0.05; done; kill -9 \$sup; new=; for i in \$(seq 100); do new=\$(pgrep -P \$p -f __retry-supervisor | grep -vx \"\$sup\") && break; sleep 0.05; done; kill -9 \$p; wait \$p; [ -n \"\$new\" ] && alive '$m'"
# second signal during the grace
mark
case_ processes "$R run -n 3 --kill-after 60s --shell \"trap 'echo got' TERM; $m & while :; do sleep 0.1; done\" & p=\$!; sleep 0.5; kill -TERM \$p; sleep 0.3; kill -TERM \$p; s=\$(date +%s); wait \$p; [ \$(( \$(date +%s) - s )) -lt 10 ] && alive '$m'"
# stopped: SIGTTIN fails the attempt; SIGSTOP and SIGTSTP are stuck attempts (retry, timeout)
mark
case_ processes "timeout 20 $R run -n 2 -d 0 --shell 'kill -TTIN \$\$; $m'; [ \$? -eq 149 ] && alive '$m'"
for stop in STOP TSTP; do
  mark
  case_ processes "timeout 20 $R run -n 2 -d 0 --shell 'kill -$stop \$\$; $m' 2>err; [ \$? -eq 124 ] && [ \$(grep -c 'stopped by SIG$stop' err) -eq 2 ] && alive '$m'"
done
# Ctrl-C on a shell loop that calls retry stops the loop (retry dies of SIGINT)
mark
mkdir loop$n
printf 'for i in 1 2 3; do "$1" run -n 1 --shell "touch started.$i; [ $i -gt 1 ] || exec %s"; touch after.$i; done\n' "$m" > loop$n/loop.sh
case_ processes "cd loop$n; set -m; bash loop.sh $R & l=\$!; while [ ! -e started.1 ]; do sleep 0.01; done; kill -INT -\$l; wait \$l; [ \$? -eq 130 ] && [ ! -e after.1 ] && alive '$m'"
# a connect or call that stalls has a bound of its own, documented in --help
case_ processes "$R run --help | tr -s ' \\n' ' ' | grep -q 'Without it a --tcp connect has 10s and a --url call 60s until its response headers'"
# --- pipes: closed stdout/stderr, live/final, sizes
for mode in live final; do
  for size in 100000 10000000; do
    mark
    if [ $mode = live ]; then
      case_ pipes "$R run --stdout $mode -n 2 -d 0 --kill-after 300ms --shell 'head -c $size /dev/zero; $m' | head -c 10 >/dev/null; [ \${PIPESTATUS[0]} -eq 141 ] && alive '$m'"
    else # final: written at the end, by the last attempt
      case_ pipes "$R run -q --stdout $mode -n 2 -d 0 --kill-after 300ms --shell 'head -c $size /dev/zero; $m & [ \$RETRY_ATTEMPT -eq 2 ]' 2>/dev/null | head -c 10 >/dev/null; [ \${PIPESTATUS[0]} -eq 141 ] && alive '$m'"
    fi
    mark
    case_ pipes "$R run --stdout $mode -n 2 -d 0 --kill-after 300ms --shell 'head -c $size /dev/zero >&2; $m' 2>&1 >/dev/null | head -c 10 >/dev/null; [ \${PIPESTATUS[0]} -eq 141 ] && alive '$m'"
  done
done
# --- disk: TMPDIR unwritable, /dev/full
for size in 1000000 12000000 80000000; do
  for mode in final; do
    case_ disk "TMPDIR=/nonexistent $R run -q --stdout $mode -n 1 -- head -c $size /dev/zero > out; s=\$?; out=\$(wc -c < out); [ \$s -eq 0 -a \$out -eq $size ] || [ \$s -ne 0 -a \$out -eq 0 ]"
  done
  case_ disk "out=\$(head -c $size /dev/zero | TMPDIR=/nonexistent $R run -q -n 2 -d 0 --stdout final --shell 'wc -c; [ \$RETRY_ATTEMPT -eq 2 ]'); s=\$?; [ \$s -eq 0 -a \"\$out\" = $size ] || [ \$s -ne 0 ]"
done
for mode in live final; do
  for size in 100 12000000; do
    case_ disk "$R run -q --stdout $mode -n 1 -- head -c $size /dev/zero > /dev/full; [ \$? -ne 0 ]"
  done
done
case_ disk "$R wait -q=false --success 'a==\`1\`' --query a -- echo '{\"a\":1}' > /dev/full; [ \$? -ne 0 ]"
case_ disk "timeout -s KILL 10 $R run -q -n1 --max-time 2 --max-output 10M -- yes | wc -c | awk '{exit !(\$1 <= 10485760)}'"
# --- special files
mkfifo fifo; truncate -s 70M big; mkdir dir
for f in /dev/zero fifo big dir; do
  case_ files "ulimit -v 3000000; timeout -s KILL 10 $R wait --waiter-file $f --waiter X -- true; [ \$? -eq 125 ]"
  case_ files "ulimit -v 3000000; timeout -s KILL 10 $R wait --success 'a==\`1\`' --input @$f -- true; [ \$? -eq 125 ]"
  case_ files "ulimit -v 3000000; timeout -s KILL 10 $R run --url http://127.0.0.1:9/ --data @$f; [ \$? -eq 125 ]"
done
# --- secrets: sinks x kinds (no server needed: connection refused still logs)
secrets=("-H 'X-Goog-Api-Key: SEKRET1'" "-H 'Private-Token: SEKRET1'" "-H 'X-Vault-Token: SEKRET1'" "-H 'api-key: SEKRET1'" "-H 'X-Auth: SEKRET1'" "-H 'Authorization: Bearer SEKRET1'")
for s in "${secrets[@]}"; do
  case_ secrets "$R run -v -n 1 $s --report r.json --url http://127.0.0.1:9/x 2>err; ! grep -q SEKRET err && ! grep -q SEKRET r.json"
  case_ secrets "$R run -v --log-format json -n 1 $s --url http://127.0.0.1:9/x 2>err; ! grep -q SEKRET err"
done
for q in access_token X-Amz-Signature token key sig; do
  case_ secrets "$R run -v -n 1 --report r.json --url 'http://127.0.0.1:9/x?$q=SEKRET2' 2>err; ! grep -q SEKRET err && ! grep -q SEKRET r.json"
done
case_ secrets "$R run -n 1 --report r.json -- curl -sf -H 'Authorization: Bearer SEKRET3' https://u:SEKRET4@127.0.0.1:9/ 2>/dev/null; ! grep -q SEKRET r.json"
case_ secrets "$R run --url 'http://u:pa/SEKRET5@127.0.0.1:99999/' 2>err; ! grep -q SEKRET err"
# --- bad input: exit 125, nothing run
bad=("--report /nonexistent/r.json -- touch ran" "--url http://127.0.0.1:99999/" "''" "--success '[::0]' -- touch ran" "-X 'PO ST' --url http://127.0.0.1:9/" "--cacert missing.pem --url https://127.0.0.1:9/" "--max-output lots -- touch ran")
for b in "${bad[@]}"; do
  case_ badinput "rm -f ran; eval $R run $b 2>err; [ \$? -eq 125 ] && [ ! -e ran ] && [ \$(wc -l < err) -eq 1 ]"
done
case_ badinput "rm -f ran; RETRY_SHELL=1 $R run 'touch ran' 2>err; [ \$? -eq 125 ] && [ ! -e ran ]"
case_ badinput "RETRY_URL=http://127.0.0.1:99999/ $R run 2>err; [ \$? -eq 125 ] && grep -q RETRY_URL err"
case_ badinput "RETRY_HEADER=NoColon $R run --url http://127.0.0.1:9/ 2>err; [ \$? -eq 125 ] && grep -q RETRY_HEADER err"
case_ badinput "RETRY_SCHEDULE=soon $R run -- true 2>err; [ \$? -eq 125 ] && grep -q RETRY_SCHEDULE err"
case_ badinput "$R run -n 2 -d 0 --shell 'printf partial >&2; exit 1' 2>err; grep -q '^retry: attempt 1/2' err"
# --- state: retry state reset removes retry states only; kill -9 during
# --state writes leaves no temporary file behind the next invocation
case_ state "echo precious > notes.txt; $R state reset notes.txt; [ \$? -eq 125 ] && grep -q precious notes.txt"
case_ state "echo '{\"version\": 2' > c.json; $R state reset c.json; [ \$? -eq 125 ] && [ -e c.json ] && $R state reset --force c.json && [ ! -e c.json ]"
case_ state "mkdir -p k9; for i in \$(seq 40); do $R run -q --state k9/s.json --schedule '1000 1ms' -- false & p=\$!; sleep 0.00\$((RANDOM % 10)); kill -9 \$p; wait \$p; done; sleep 0.05; $R run -q --state k9/s.json --schedule '1000 1ms' -- false; [ \$(ls -A k9 | grep -c tmp) -eq 0 ]"
# --- sinks: every file retry writes for the user follows one write policy
# (curl -o and tee): symlinks followed, devices, FIFOs and /dev/fd/N
# written through and never replaced; opening a FIFO never blocks signals;
# a sink that fails is exit 74. As root a private device node stands in
# for /dev/full, so that a broken binary cannot replace the system's.
full=/dev/full
if [ "$(id -u)" = 0 ] && mknod "$W/full" c 1 7 2>/dev/null; then full="$W/full"; fi
export full
case_ sinks "echo old > real.json; ln -sf real.json link.json; $R run -q -n 1 --report link.json -- true; [ -L link.json ] && grep -q outcome real.json"
case_ sinks "ln -sf /proc/self/fd/1 mystdout; $R run -q -n 1 --report mystdout -- true | grep -q outcome; [ -L mystdout ]"
case_ sinks "$R run -q -n 1 --report /dev/fd/3 -- true 3>&1 | grep -q outcome"
case_ sinks "rm -f rf; mkfifo rf; cat rf > got & $R run -q -n 1 --report rf -- true; wait; grep -q outcome got && [ -p rf ]"
case_ sinks "$R run -q -n 1 --report $full -- true; [ \$? -eq 74 ] && [ -c $full ]"
case_ sinks "$R run -n 2 -d 0 --log-file $full -- true 2>err; [ \$? -eq 74 ] && grep -q log-file err && [ -c $full ]"
case_ sinks "rm -f lf; mkfifo lf; timeout 20 $R run -n 1 --log-file lf -- true; [ \$? -eq 74 ] && [ -p lf ]"
for sig in INT TERM HUP QUIT; do
  n=$((n+1)); m=$((7713100 + n))
  num=$(kill -l $sig)
  case_ sinks "rm -f lf; mkfifo lf; $R run -n 1 --log-file lf -- sleep $m & p=\$!; sleep 0.5; kill -$sig \$p; wait \$p; [ \$? -eq $((128+num)) ] && alive 'sleep $m'"
done
# --- secrets repeated: output tails, replayed stdout, the -v trace, and
# GitHub workflow commands that a command's output must not raise
case_ secrets "$R run -q --report r.json -n 1 -- sh -c 'echo GITHUB_TOKEN=SEKRET6; echo api_token=SEKRET6; echo \"aws_secret_access_key = SEKRET6\"; echo \"{\\\"client_secret\\\": \\\"SEKRET6\\\"}\"; exit 1' >/dev/null; ! grep -q SEKRET r.json"
case_ secrets "$R run -n 2 -d 0 --stdout final -- sh -c 'echo GITHUB_TOKEN=SEKRET7; echo \"{\\\"password\\\":\\\"SEKRET7\\\"}\"; exit 1' 2>err >/dev/null; ! grep -q SEKRET err"
case_ secrets "$R -v wait --log-format json -n 1 --success 'h=ok' -- echo '{\"h\":\"Bearer SEKRET8\"}' 2>err >/dev/null; ! grep -q SEKRET err"
case_ secrets "GITHUB_ACTIONS=true $R run --ci github -n 2 -d 0 --stdout final -- sh -c 'echo ::error::forged; exit 1' 2>err >/dev/null; awk '/^::stop-commands::/ { t = substr(\$0, 18); next } t != \"\" && \$0 == \"::\" t \"::\" { t = \"\"; next } /^::error::forged/ && t == \"\" { bad = 1 } END { exit bad }' err && grep -q '^::error::forged' err"
# --- bad input: wildcards and ~ in a command string, scope names,
# RETRY_SHELL_PATH without --shell; a cut final stdout is never written
for cs in 'touch ran *.log' 'touch ran ~' 'touch ran a?' 'touch ran [ab]'; do
  case_ badinput "rm -f ran; $R run '$cs' 2>err; [ \$? -eq 125 ] && [ ! -e ran ] && [ \$(wc -l < err) -eq 1 ]"
done
for sc in . .. "\$'a\\nb'"; do
  case_ badinput "rm -f ran; $R run --scope $sc -- touch ran 2>err; [ \$? -eq 125 ] && [ ! -e ran ] && [ \$(wc -l < err) -eq 1 ]"
done
case_ badinput "rm -f ran; RETRY_SHELL_PATH=bash $R run -- touch ran 2>err; [ \$? -eq 125 ] && [ ! -e ran ] && grep -q RETRY_SHELL_PATH err"
# --- bad input, round two: a lone [ is a word as in sh; after -- the
# words are argv; out-of-range values are too large, not malformed; a bad
# RETRY_ON_RETRY names the variable; a timed-out attempt retried by
# --retry-error timeout is a timeout.
case_ badinput "rm -f ready; $R run -q -n 1 '[ -f ready ]' 2>err; [ \$? -eq 1 ] && ! grep -q wildcard err"
case_ badinput "mkdir -p 'sp ace'; printf '#!/bin/sh\\necho ran\\n' > 'sp ace/p'; chmod +x 'sp ace/p'; [ \"\$($R run -q -- \"\$PWD/sp ace/p\")\" = ran ]"
case_ badinput "$R run -d 3000000h -- true 2>err; [ \$? -eq 125 ] && grep -q 'too large' err"
case_ badinput "$R run -n 99999999999999999999 -- true 2>err; [ \$? -eq 125 ] && grep -q 'too large' err"
case_ badinput "RETRY_ON_RETRY='echo \$X' $R run -n 1 -- true 2>err; [ \$? -eq 125 ] && grep -q RETRY_ON_RETRY err"
case_ badinput "$R run -n 2 -d 0 --attempt-timeout 50ms --kill-after 0 --retry-error timeout -- sleep 7 2>err; [ \$? -eq 124 ] && grep -q 'retry (timeout)' err"
case_ disk "$R run -q -n 1 --stdout final --max-output 1M -- head -c 5000000 /dev/zero > out; [ \$? -ne 0 ] && [ \$(wc -c < out) -eq 0 ]"
case_ disk "$R run -q -n 1 --stdout final --max-output 1M --success-exit 0,1,137,141,143 -- head -c 5000000 /dev/zero > out; [ \$? -ne 0 ] && [ \$(wc -c < out) -eq 0 ]"
# --- trust, round two (secrets and files): usage errors hide values, not
# the parser's words; argv and URL shapes; text shapes; the acceptor trace;
# links planted in sticky directories
case_ badinput "$R run --retry 3 -- true 2>err; [ \$? -eq 125 ] && grep -q -- '-n/--attempts 3' err && ! grep -q REDACTED err"
case_ badinput "$R run --retry 'a[?b==3]' -- true 2>err; [ \$? -eq 125 ] && grep -q 'Invalid token: tNumber' err"
case_ secrets "$R run -q -n 1 --state argv.json --report r.json -- sh -c 'exit 1' sh --password SEKRET9 --client-secret SEKRET9 --token SEKRET9 -u u:SEKRET9 'http://h/a;jsessionid=SEKRET9'; ! grep -q SEKRET r.json argv.json && ! $R state show argv.json | grep -q SEKRET"
case_ secrets "printf 'AKIAIOSFODNN7EXAMPLE\\nghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2\\ntoken SEKRET10x\\npassword: |\\n  SEKRET10\\n' > shapes.txt; $R run -n 2 -d 0 --stdout final -- sh -c 'cat shapes.txt; exit 1' 2>err >/dev/null; ! grep -q -e SEKRET -e AKIAIOSF -e ghp_ err"
case_ secrets "$R -v wait --log-format json -n 1 --success 'Credentials.SecretAccessKey=x' -- echo '{\"Credentials\":{\"SecretAccessKey\":\"SEKRET11\"}}' 2>err >/dev/null; ! grep -q SEKRET err && grep -q '\"state\":\"success\"' err"
case_ secrets "$R -v wait -n 1 --failure 'Credentials.SecretAccessKey==\`\"SEKRET12\"\`' --report r.json -- echo '{\"Credentials\":{\"SecretAccessKey\":\"SEKRET12\"}}' 2>err >/dev/null; ! grep -q SEKRET err r.json"
# windows cut from an attempt's output start at a line start (the report's
# 2 KiB tail of a 2.5 KB key; the replayed 1 MiB window); a line longer than
# 64 KiB is redacted with the name before each value; a YAML value whose key
# came in an earlier write; a 1 MiB secret-rich log is redacted whole
case_ secrets "$R run -q -n 1 --report r.json -- sh -c 'printf \"api_key=\"; head -c 2500 /dev/zero | tr \"\\0\" K; printf \"\\ndone\\n\"; exit 1' >/dev/null; ! grep -q KKKK r.json && grep -q done r.json"
case_ secrets "$R run -n 2 -d 0 --stdout final -- sh -c 'printf \"api_key=\"; head -c 1049576 /dev/zero | tr \"\\0\" K; printf \"\\ndone\\n\"; exit 1' 2>err >/dev/null; ! grep -q KKKK err && grep -qx done err"
case_ secrets "$R run -n 2 -d 0 --stdout final -- sh -c 'head -c 65526 /dev/zero | tr \"\\0\" x; printf \" password=SEKRET13 b\\n\"; exit 1' 2>err >/dev/null; ! grep -q SEKRET err && grep -q 'password=REDACTED b' err"
case_ secrets "$R run -n 2 -d 0 --stdout final -- sh -c 'head -c 32749 /dev/zero | tr \"\\0\" x; printf \"\\ndb:\\n  password: |\\n    SEKRET14\\n  user: app\\n\"; exit 1' 2>err >/dev/null; ! grep -q SEKRET err && grep -q 'user: app' err"
case_ secrets "awk 'BEGIN { for (i = 0; n < 1000000; i++) { l = sprintf(\"GET /x?page=%d&session_id=SEKRET15%d HTTP/1.1 \\\"https://h/l?p=%d\\\"\\n\", i, i, i); printf \"%s\", l; n += length(l) } }' > sess.log; $R run -n 2 -d 0 --stdout final -- sh -c 'cat sess.log; exit 1' 2>err >/dev/null; ! grep -q SEKRET err && [ \$(grep -c 'session_id=REDACTED' err) -eq \$(wc -l < sess.log) ]"
case_ secrets "printf 'db:\\n  password: \"SEKRET16\"\\n  api_key: '\\''SEKRET16'\\''\\ntokens:\\n  - SEKRET16\\n- x: 1\\n' > vals.yaml; $R run -n 2 -d 0 --stdout final -- sh -c 'cat vals.yaml; exit 1' 2>err >/dev/null; ! grep -q SEKRET err && grep -q 'password: \"REDACTED\"' err"
case_ secrets "$R -v wait -n 1 --success-all 'Items[].password=SEKRET17' --success '@=x' -- echo '{\"Items\":[{\"password\":\"SEKRET17\"}],\"Tokens\":[\"SEKRET17\"]}' 2>err >/dev/null; ! grep -q SEKRET err && grep -q 'password=REDACTED' err"
# --- trust, round two (output that must reach its reader): a log on retry's
# own stdout shares its offset
case_ sinks "rm -f own.txt; $R run -n 2 -d 0 --stdout final --log-file /dev/stdout -- sh -c 'echo hello; exit 1' > own.txt; [ \$? -eq 1 ] && head -1 own.txt | grep -qx 'retry: stdout of attempt 1/2:' && [ \$(grep -cx hello own.txt) -eq 2 ]"
# retry wait never runs past --max-time, even when a poll ignores SIGTERM
# (the grace comes out of the budget): well before --kill-after 20s
case_ processes "s=\$(date +%s%N); $R wait -q --max-time 2s --kill-after 20s -d 1s --success done -- sh -c 'trap \"\" TERM; sleep 30; echo \"{}\"'; st=\$?; [ \$st -eq 124 ] && [ \$(( (\$(date +%s%N) - s) / 1000000 )) -lt 10000 ]"
# a reader that goes away while final mode holds an endless producer's
# stdout: 141 at once, not the 10 GiB bound (here --max-output 100M) and 1;
# an attempt that writes no stdout runs on
mark
case_ pipes "$R run -q --stdout final --max-output 100M --kill-after 300ms --shell 'yes & $m' | head -c 0; [ \${PIPESTATUS[0]} -eq 141 ] && alive '$m'"
case_ pipes "$R run -q --stdout final -- sh -c 'sleep 0.5; touch ran.silent' | true; [ \${PIPESTATUS[0]} -eq 0 ] && [ -e ran.silent ]"
# a signal while retry is blocked writing to a reader that does not read:
# 128+N long before the reader (sleep 8) ends
for mode in final live; do
  for sig in TERM INT; do
    num=$(kill -l $sig)
    case_ pipes "rm -f rp st; ( $R run -q -n 1 --stdout $mode -- head -c 20M /dev/zero & echo \$! > rp; wait \$!; echo \$? > st ) | sleep 8 & sleep 1; kill -$sig \$(cat rp); for i in \$(seq 40); do [ -s st ] && break; sleep 0.1; done; [ \"\$(cat st)\" = $((128+num)) ]"
  done
done
if [ "$(id -u)" = 0 ]; then
  case_ sinks "rm -rf sticky; mkdir sticky; chmod 1777 sticky; echo precious > victim; ln -s ../victim sticky/r.json; chown -h 65534 sticky/r.json; $R run -q -n 1 --report sticky/r.json -- true; [ \$? -eq 125 ] && grep -qx precious victim"
  case_ sinks "rm -rf sticky; mkdir sticky; chmod 1777 sticky; ln -s ../created sticky/r.json; chown -h 65534 sticky/r.json; $R run -q -n 1 --log-file sticky/r.json -- true; [ \$? -eq 125 ] && [ ! -e created ]"
fi
# --- trust, round two (files): a wait with no whole poll writes nothing
case_ pipes "out=\$($R wait -n 3 -d 0 --max-time 1.5s --success state=done -- sh -c 'printf \"{\\\"state\\\":\\\"pend\"; sleep 5' 2>err); [ \$? -eq 124 ] && [ -z \"\$out\" ] && grep -q 'nothing written to stdout' err"
case_ pipes "$R wait -n 3 -d 0 --success state=done --query state -- sh -c 'echo \"{\\\"state\\\":\\\"pending\\\"}\"; touch w3.ready; sleep 5' > out 2>err & p=\$!; while [ ! -e w3.ready ]; do sleep 0.01; done; kill -TERM \$p; wait \$p; [ \$? -eq 143 ] && [ ! -s out ]"
# every line of a JSON log file parses, a retried attempt's output included (redacted)
case_ sinks "rm -f o4 j.jsonl; $R run -n 2 -d 0 --log-format json --log-file j.jsonl -- sh -c '[ -e o4 ] && exit 0; touch o4; echo hi; echo password=SEKRET13; exit 1' && perl -MJSON::PP -ne 'decode_json(\$_)' j.jsonl && grep -q '\"text\":\"hi' j.jsonl && ! grep -q SEKRET j.jsonl"
# sinks that collide are refused (125, nothing run): report = log file, = --state, = the
# scope's bucket, = stdin; empty paths
case_ sinks "rm -f ran x.json; $R run -n 1 --report x.json --log-file x.json -- touch ran 2>err; [ \$? -eq 125 ] && [ ! -e ran ] && [ ! -e x.json ] && [ \$(wc -l < err) -eq 1 ]"
case_ sinks "rm -f ran s10.json; $R run -q --state s10.json --schedule '3 10ms' -- false; cp s10.json s10.before; $R run -n 1 --state s10.json --schedule '3 10ms' --report s10.json -- touch ran; [ \$? -eq 125 ] && [ ! -e ran ] && cmp -s s10.json s10.before"
case_ sinks "rm -f ran; $R run -n 1 --state s10.json --schedule '3 10ms' --log-file s10.json -- touch ran; [ \$? -eq 125 ] && [ ! -e ran ] && cmp -s s10.json s10.before"
case_ sinks "rm -rf st10 ran; RETRY_STATE_DIR=\$PWD/st10 $R run -q --scope api -- true; cp st10/api.json api.before; RETRY_STATE_DIR=\$PWD/st10 $R run -n 1 --scope api --report st10/api.json -- touch ran; [ \$? -eq 125 ] && [ ! -e ran ] && cmp -s st10/api.json api.before"
case_ sinks "rm -f ran; echo input > in10.txt; $R run -n 1 --report /dev/stdin -- touch ran < in10.txt; [ \$? -eq 125 ] && [ ! -e ran ] && [ \"\$(cat in10.txt)\" = input ]"
case_ sinks "rm -f ran; $R run -n 1 --report '' -- touch ran; [ \$? -eq 125 ] && [ ! -e ran ]"
case_ sinks "rm -f ran; $R run -n 1 --log-file '' -- touch ran; [ \$? -eq 125 ] && [ ! -e ran ]"
# no --report replaces a FIFO or a device that another writer swaps in for the file
# (renameat2 RENAME_EXCHANGE in a loop; python3's ctypes); a kill -9 during --report
# leaves nothing once the next --report to that path ran
if command -v python3 >/dev/null; then
  cat > racer.py <<'PY'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
while True:
    libc.renameat2(-100, a, -100, b, 2)
PY
  specials="fifo"; [ "$(id -u)" = 0 ] && specials="fifo dev"
  for sp in $specials; do
    case_ sinks "rm -rf race; mkdir race; echo x > race/r.json; if [ $sp = fifo ]; then mkfifo race/sp; else mknod race/sp c 1 3; fi; python3 racer.py race/r.json race/sp & rp=\$!; for i in \$(seq 40); do timeout -s INT 0.5 $R run -q -n 1 --report race/r.json -- true 2>/dev/null; done; kill \$rp; wait \$rp; n=0; for f in race/r.json race/sp; do [ -p \$f ] || [ -c \$f ] && n=\$((n+1)); done; [ \$n -eq 1 ] && [ \$(ls -A race | wc -l) -eq 2 ]"
  done
fi
case_ sinks "rm -rf k9r; mkdir k9r; for i in \$(seq 40); do $R run -q -n 1 --report k9r/r.json -- true & p=\$!; sleep 0.00\$((RANDOM % 10)); kill -9 \$p; wait \$p; done; $R run -q -n 1 --report k9r/r.json -- true; [ \$(ls -A k9r | grep -c tmp) -eq 0 ]"
# tests name no file of the machine's as a write target: as root, a null device of our own
# takes --report and --log-file and stays the same device (the machine's /dev/null untouched)
if [ "$(id -u)" = 0 ] && mknod "$W/null17" c 1 3 2>/dev/null; then
  case_ sinks "i=\$(stat -c %i null17); $R run -n 2 -d 0 --report null17 --log-file null17 -- sh -c '[ -e o17 ] || { touch o17; exit 1; }' && [ -c null17 ] && [ \$(stat -c %i null17) = \$i ]"
fi
# --- trust, round two (timing): RFC 850's 50-year rule compares dates (a
# Retry-After of 29-Dec-76 received in 2026 is 1976, so no wait); a 400 whose
# error code is RequestTimeout is retried, as the AWS SDKs do; with an
# adaptive scope already throttled, a run whose budget ends before the next
# send gives up at once with 0 attempts. A tiny HTTP server of python3's
# serves the replies of a file, one a request, the last one repeated.
if command -v python3 >/dev/null; then
  cat > replies.py <<'PY'
import http.server, sys
replies = [l.rstrip("\n").split("|", 2) for l in open(sys.argv[1]) if l.strip()]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        status, header, body = replies.pop(0) if len(replies) > 1 else replies[0]
        with open(sys.argv[1] + ".log", "a") as log:
            log.write(self.path + "\n")
        self.send_response(int(status))
        if header:
            k, v = header.split(": ", 1)
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + ".port", "w").write(str(s.server_port))
s.serve_forever()
PY
  serve() { # FILE: starts the server on FILE's replies, sets U to its URL, P to its pid
    rm -f "$1.port" "$1.log"; python3 replies.py "$1" & P=$!
    for _ in $(seq 100); do [ -s "$1.port" ] && break; sleep 0.05; done
    U=http://127.0.0.1:$(cat "$1.port")/x
  }
  printf '503|Retry-After: Wednesday, 29-Dec-76 00:00:00 GMT|busy\n200||ok\n' > rfc850
  serve rfc850
  case_ state "$R run -n 2 --max-time 20s --url $U > out; [ \$? -eq 0 ] && grep -qx ok out && [ \$(wc -l < rfc850.log) -eq 2 ]"
  kill $P; wait $P 2>/dev/null
  printf '400|Content-Type: application/xml|<?xml version="1.0" encoding="UTF-8"?><Error><Code>RequestTimeout</Code><Message>Your socket connection to the server was not read from or written to within the timeout period.</Message></Error>\n200||stored\n' > reqtimeout
  serve reqtimeout
  case_ state "$R run -n 3 -d 0 --url $U > out; [ \$? -eq 0 ] && grep -qx stored out && [ \$(wc -l < reqtimeout.log) -eq 2 ]"
  kill $P; wait $P 2>/dev/null
  printf '429||slow down\n' > throttled
  serve throttled
  case_ state "rm -rf st25; export RETRY_STATE_DIR=\$PWD/st25; $R run -q --scope t25 --mode adaptive -n 4 -d 0 --throttle-delay 0 --url $U; $R run --scope t25 --mode adaptive --max-time 1s --url $U 2>err; [ \$? -eq 124 ] && grep -q 'gave up after 0 attempts' err && [ \$(wc -l < throttled.log) -eq 4 ]"
  kill $P; wait $P 2>/dev/null
fi
total_t=0; total_h=0
for a in processes pipes disk files sinks secrets badinput state; do
  printf '%-10s %3d tried %3d held\n' "$a" "${tried[$a]:-0}" "${held[$a]:-0}"
  total_t=$((total_t + ${tried[$a]:-0})); total_h=$((total_h + ${held[$a]:-0}))
done
printf '%-10s %3d tried %3d held\n' total $total_t $total_h
rm -rf "$W"
