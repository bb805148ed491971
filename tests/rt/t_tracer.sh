#!/usr/bin/env bash
# The tracer end to end: runtime hooks (-pg -mfentry preloaded or linked, and
# -finstrument-functions), record, import with DWARF names, call-stack views, patch.
. "$(dirname "$0")/../lib.sh"
P=${TRAZA_BUILD:-build}/rt/tests
if [ ! -x "$P/prog.pre" ]; then skip "tracer" "test programs not built ($P)"; exit 0; fi
cd "$TMP"

# preloaded runtime, ring mode
check_rc "record preloaded" 0 "$TRAZA" record -o pre.tzr -- "$P/prog.pre" 4
check_rc "import dump" 0 "$TRAZA" import --name pre pre.tzr
tree=$("$TRAZA" callstack pre --tree)
main_thread=$(printf '%s\n' "$tree" | awk '/^prog.pre/{th=$0} /^  main$/{print th}')
body=$(printf '%s\n' "$tree" | awk -v th="$main_thread" '$0==th{on=1;next} /^prog/{on=0} on')
expect='  main
    fact
    catcher
      thrower
        thrower
          thrower
            thrower
      leaf
    tail_caller
    tail_target'
check_eq "nesting, longjmp and tail call (main thread)" "$expect" "$body"
check_eq "two worker threads" "2" "$(printf '%s\n' "$tree" | grep -c '^  worker$')"
check_eq "leaf under worker" "6" "$(printf '%s\n' "$tree" | grep -c '^    leaf$')"
info=$("$TRAZA" info pre --json)
check_eq "user events punctual" "3" "$(printf '%s' "$info" | json_get categories.punctual)"
check_eq "producers: process + 3 threads" "4" "$(printf '%s' "$info" | json_get producers)"
check_eq "no lost events" "0" "$(printf '%s' "$info" | json_get params.rt\\.lost_events 2>/dev/null || printf '%s' "$info" | python3 -c 'import json,sys; d=json.load(sys.stdin); p=d["params"]; print(p["rt.lost_events"] if isinstance(p,dict) else [x for x in p if x["key"]=="rt.lost_events"][0]["value"])')"

# linked runtime, streaming mode
check_rc "record linked, stream" 0 "$TRAZA" record --mode stream -o st.tzr --import st -- "$P/prog.pg" 4


s1=$(printf '%s\n' "$tree" | grep -v '^prog' | sort | uniq -c)
s2=$("$TRAZA" callstack st --tree | grep -v '^prog' | sort | uniq -c)
check_eq "stream: same calls" "$s1" "$s2"

# -finstrument-functions: exits from the compiler; recursion is not tail-optimised there
check_rc "record cyg" 0 "$TRAZA" record -o cyg.tzr --import cyg -- "$P/prog.cyg" 4
check_eq "cyg: fact recursion nested 4 deep" "4" "$("$TRAZA" callstack cyg --json | json_get profile | python3 -c 'import json,sys; print([f for f in json.load(sys.stdin) if f["name"]=="fact"][0]["calls"])')"

# shadow stack overflow: deeper than 256 is counted, never a crash
check_rc "deep recursion" 0 "$TRAZA" record -o deep.tzr --import deep -- "$P/prog.pre" 1 400
check_contains "deep: program ran" "$OUT" "exit status 0"
dj=$("$TRAZA" callstack deep --json)
check_eq "deep: calls recorded up to the shadow depth" "255" "$(printf '%s' "$dj" | json_get profile | python3 -c 'import json,sys; print([f for f in json.load(sys.stdin) if f["name"]=="deep"][0]["calls"])')"
check_contains "deep: overflow counted" "$("$TRAZA" info deep)" "rt.shadow_overflow = 146"

# flight recorder: a small ring keeps the newest events and counts the rest
check_rc "small ring" 0 "$TRAZA" record --buffer 16K -o ring.tzr --import ring -- "$P/bench.pre" loop 20000
ri=$("$TRAZA" info ring)
case "$ri" in *"rt.overwritten_blocks = 0"*) fail "ring overwrote blocks" "$ri" ;; *"rt.overwritten_blocks ="*) pass "ring overwrote blocks" ;; *) fail "ring overwrote blocks" "$ri" ;; esac
check_contains "ring: newest kept, main still open" "$("$TRAZA" callstack ring)" "main "

# errors
check_rc "record: uninstrumented, no dump" 1 "$TRAZA" record -o none.tzr -- /bin/true
head -c 300 pre.tzr > trunc.tzr
check_rc "truncated dump rejected" 1 "$TRAZA" import --name tr trunc.tzr
check_contains "truncated: byte offset in message" "$OUT" "byte"
check_rc "svg" 0 "$TRAZA" callstack pre --svg cs.svg
check_contains "svg has rects" "$(head -c 4000 cs.svg)" "<rect"
check_rc "usage error" 2 "$TRAZA" callstack

# patch: selective instrumentation, verified by running the patched programs
check_rc "patch --list" 0 "$TRAZA" patch "$P/prog.pre" --list --json
check_eq "patch: 9 hook sites" "9" "$(printf '%s' "$OUT" | json_get sites)"
check_rc "patch --only" 0 "$TRAZA" patch "$P/prog.pre" -o only --only '^(main|leaf)$'
check_rc "record patched" 0 "$TRAZA" record -o only.tzr --import only -- ./only 4
check_eq "only main and leaf recorded" "leaf main" "$("$TRAZA" callstack only --json | json_get profile | python3 -c 'import json,sys; print(" ".join(sorted(f["name"] for f in json.load(sys.stdin))))')"
check_rc "patch linked --disable-all" 0 "$TRAZA" patch "$P/prog.pg" -o none --disable-all
check_eq "all-NOP program runs correctly" "$("$P/prog.plain" 4)" "$(TRAZA_RT_OUT=none.tzr ./none 4)"
check_rc "re-enable from NOPs" 0 "$TRAZA" patch none -o back --enable '^(fact|thrower)$'
check_rc "record re-enabled" 0 "$TRAZA" record -o back.tzr --import back -- ./back 4
check_eq "re-enabled: fact and thrower" "fact thrower" "$("$TRAZA" callstack back --json | json_get profile | python3 -c 'import json,sys; print(" ".join(sorted(f["name"] for f in json.load(sys.stdin))))')"
# The budget depends on the recorded run time; 0.01% keeps the outcome the same
# whether the machine is idle or 100x slower (50000 calls of small vs 1 of main).
# --cost 1 stays below the real cost of a traced call, so the untraced run time
# (the recording's less 50001 x 1 ns) is positive on any machine.
check_rc "record for budget" 0 "$TRAZA" record -o b.tzr --import bud -- "$P/bench.pre" loop 50000
check_rc "patch --budget: cost above the recording's run time" 2 "$TRAZA" patch "$P/bench.pre" -o bpatched --budget 1% --cost 1e9 --from bud
check_contains "budget: overestimated cost named" "$OUT" "not more than its 50001 traced calls x 1e+09 ns: the cost per call is overestimated (give a lower --cost)"
check_rc "patch --budget" 0 "$TRAZA" patch "$P/bench.pre" -o bpatched --budget 0.01% --cost 1 --from bud
check_contains "budget: overhead relative to the untraced run" "$OUT" "over an untraced run of"
check_contains "budget turns off the hot function" "$OUT" "off small"
check_rc "budget: patched program records main only" 0 "$TRAZA" record -o b2.tzr --import bud2 -- ./bpatched loop 20000
check_eq "budget: small gone" "main" "$("$TRAZA" callstack bud2 --json | json_get profile | python3 -c 'import json,sys; print(" ".join(sorted(f["name"] for f in json.load(sys.stdin))))')"
check_rc "patch: not ELF" 1 "$TRAZA" patch pre.tzr -o x --disable-all
check_rc "patch: usage" 2 "$TRAZA" patch "$P/prog.pre"

# 32-bit ARM and Thumb-2 under qemu-arm (runtime linked in, static programs built
# with -finstrument-functions: exits from the compiler, so no tail call elimination,
# and calls after a longjmp nest under the abandoned frames until their caller exits)
expect_cyg='  main
    fact
      fact
        fact
          fact
    catcher
      thrower
        thrower
          thrower
            thrower
              leaf
    tail_caller
      tail_target'
A=${TRAZA_BUILD:-build}/rt/arm
if ! command -v qemu-arm >/dev/null || [ ! -x "$A/prog.arm" ]; then
  skip "arm under qemu-arm" "qemu-user or gcc-arm-linux-gnueabihf missing (scripts/packages.txt)"
else
  for m in arm thumb; do
    check_rc "$m: run under qemu-arm" 0 env TRAZA_RT_OUT="$TMP/$m.tzr" qemu-arm "$A/prog.$m" 4
    check_rc "$m: import" 0 "$TRAZA" import --name "q$m" "$TMP/$m.tzr"
    mt=$("$TRAZA" callstack "q$m" --tree | awk '/^prog/{th=$0} /^  main$/{print th}')
    b=$("$TRAZA" callstack "q$m" --tree | awk -v th="$mt" '$0==th{on=1;next} /^prog/{on=0} on')
    check_eq "$m: nesting and names from DWARF" "$expect_cyg" "$b"
  done
fi

# ARM code built with -pg -marm -fno-omit-frame-pointer: __gnu_mcount_nc replaces the
# return address (frame slot or stacked lr), so exits come through the trampoline and
# tail calls / longjmp are handled as on x86_64
if ! command -v qemu-arm >/dev/null || [ ! -x "$A/prog.armpg" ]; then
  skip "arm -pg under qemu-arm" "qemu-user or gcc-arm-linux-gnueabihf missing"
else
  check_rc "arm -pg: run under qemu-arm" 0 env TRAZA_RT_OUT="$TMP/armpg.tzr" qemu-arm "$A/prog.armpg" 4
  check_eq "arm -pg: program output" "fact=24
tail=41" "$OUT"
  check_rc "arm -pg: import" 0 "$TRAZA" import --name armpg "$TMP/armpg.tzr"
  mt=$("$TRAZA" callstack armpg --tree | awk '/^prog/{th=$0} /^  main$/{print th}')
  b=$("$TRAZA" callstack armpg --tree | awk -v th="$mt" '$0==th{on=1;next} /^prog/{on=0} on')
  check_eq "arm -pg: exits by return address (longjmp, tail call)" "$expect" "$b"
  check_eq "arm -pg: two workers" "2" "$("$TRAZA" callstack armpg --tree | grep -c '^  worker$')"
fi
# A program the runtime cannot hook (not instrumented) writes no dump: record guesses why.
check_rc "an uninstrumented program: no dump" 1 "$TRAZA" record -o "$TMP/none.tzr" -- true
check_contains "an uninstrumented program: the guess" "$OUT" "without writing $TMP/none.tzr: was it compiled with -pg -mfentry or -finstrument-functions?"
