#!/usr/bin/env bash
# Stream mode: a program killed by a signal leaves a dump without its end; the import
# keeps every whole block written so far and marks the trace as truncated.
. "$(dirname "$0")/../lib.sh"
P=${TRAZA_BUILD:-build}/rt/tests
if [ ! -x "$P/bench.pg" ]; then skip "killed program" "test programs not built ($P)"; exit 0; fi
cd "$TMP"
# the runtime is linked in (bench.pg); a long loop, killed with SIGKILL after a while
{ (TRAZA_RT_MODE=stream TRAZA_RT_BUFSIZE=16K TRAZA_RT_OUT=k.tzr exec timeout -s KILL 0.2 "$P/bench.pg" loop 2000000000 >/dev/null); } 2>/dev/null
check_eq "killed by SIGKILL" "137" "$?"
check_rc "import of the killed program's dump" 0 "$TRAZA" import --name k k.tzr
info=$("$TRAZA" info k)
check_contains "marked truncated" "$info" "rt.truncated = yes"
# SIGKILL can land inside a write() of a block (the kernel may stop a large write
# between pages), so the dump may end with part of one block: at most that is dropped.
tb=$(printf '%s\n' "$info" | sed -n 's/.*rt.truncated_bytes = //p')
[ -n "$tb" ] && [ "$tb" -ge 0 ] && [ "$tb" -le 20480 ] && pass "at most one partial block dropped ($tb bytes)" || fail "at most one partial block dropped" "$tb"
check_contains "one thread's buffer lost" "$info" "rt.truncated_threads = 1"
calls=$("$TRAZA" callstack k --json | json_get profile | python3 -c 'import json,sys; print([f for f in json.load(sys.stdin) if f["name"]=="small"][0]["calls"])')
[ "$calls" -gt 1000 ] && pass "calls up to the kill imported ($calls)" || fail "calls up to the kill imported" "$calls"
check_contains "main still open at the end" "$("$TRAZA" callstack k --tree | head -3)" "main"
# a stream dump cut in the middle of a chunk: the partial chunk is dropped and counted
size=$(stat -c %s k.tzr)
head -c $((size - 100)) k.tzr > cut.tzr
check_rc "import of a dump cut mid-chunk" 0 "$TRAZA" import --name cut cut.tzr
check_contains "partial chunk counted" "$("$TRAZA" info cut)" "rt.truncated_bytes = "
[ "$("$TRAZA" info cut | sed -n 's/.*rt.truncated_bytes = //p')" -gt 0 ] && pass "dropped bytes > 0" || fail "dropped bytes > 0"
# a ring dump without its end is still refused (ring dumps are written at exit, whole)
check_rc "record ring" 0 "$TRAZA" record -o r.tzr -- "$P/bench.pre" loop 1000
head -c 300 r.tzr > rcut.tzr
check_rc "truncated ring dump refused" 1 "$TRAZA" import --name rcut rcut.tzr
