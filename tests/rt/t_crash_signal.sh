#!/usr/bin/env bash
# An instrumented signal handler (a profiling timer firing every 100 us, mostly inside
# the hooks): its calls nest under whatever they interrupted and every call is kept,
# in ring and stream mode, -pg -mfentry and -finstrument-functions alike. The program
# counts its own calls and ticks; the trace must have exactly those.
. "$(dirname "$0")/../lib.sh"
P=${TRAZA_BUILD:-build}/rt/tests
if [ ! -x "$P/crash.pre" ]; then skip "signal handler" "test programs not built ($P)"; exit 0; fi
cd "$TMP"
profile() { # TRACE -> "work N on_tick N tick_leaf N"
    "$TRAZA" callstack "$1" --json | json_get profile | python3 -c '
import json,sys
p={f["name"]:f["calls"] for f in json.load(sys.stdin)}
print(" ".join("%s %s"%(k,p.get(k,0)) for k in ("work","on_tick","tick_leaf")))'
}
for v in pre cyg; do
    for mode in ring stream; do
        for run in 1 2 3; do
            n=t$v$mode$run
            check_rc "$v $mode run $run: record and import" 0 "$TRAZA" record --mode $mode --buffer 64M -o $n.tzr --import $n -- "$P/crash.$v" sig 300000
            ticks=$(printf '%s\n' "$OUT" | sed -n 's/^work 300000 ticks //p')
            [ -n "$ticks" ] || { fail "$v $mode run $run: program output" "$OUT"; continue; }
            check_eq "$v $mode run $run: calls = the program's counts" "work 300000 on_tick $ticks tick_leaf $ticks" "$(profile $n)"
            # the handler's leaf always nests in the handler
            bad=$("$TRAZA" callstack $n --tree | awk '/^ *tick_leaf$/{ if (prev !~ /^ *on_tick$/) n++ } {prev=$0} END{print n+0}')
            check_eq "$v $mode run $run: tick_leaf under on_tick" "0" "$bad"
        done
    done
done
