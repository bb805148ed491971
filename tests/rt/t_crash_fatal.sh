#!/usr/bin/env bash
# Fatal signals: the runtime writes the dump on SIGSEGV, SIGABRT, SIGFPE (and SIGBUS,
# SIGILL), then dies of the signal; `traza record` says so and imports the dump.
. "$(dirname "$0")/../lib.sh"
P=${TRAZA_BUILD:-build}/rt/tests
if [ ! -x "$P/crash.pre" ]; then skip "fatal signals" "test programs not built ($P)"; exit 0; fi
cd "$TMP"
for sig in segv:11 abort:6 fpe:8; do
    how=${sig%%:*} num=${sig##*:}
    for mode in ring stream; do
        n=$how$mode
        check_rc "$how $mode: record and import" 0 "$TRAZA" record --mode $mode -o $n.tzr --import $n -- "$P/crash.pre" $how 500
        check_contains "$how $mode: says the signal" "$OUT" "died of signal $num ("
        prof=$("$TRAZA" callstack $n --json | json_get profile | python3 -c 'import json,sys; print(" ".join("%s %s" % (f["name"], f["calls"]) for f in sorted(json.load(sys.stdin), key=lambda f: f["name"])))')
        check_eq "$how $mode: every call up to the crash" "crash_now 1 main 1 work 500" "$prof"
        check_contains "$how $mode: open at the crash" "$("$TRAZA" callstack $n --tree | tail -2)" "crash_now"
    done
done
# linked-in runtime (crash.pg) under -finstrument-functions (crash.cyg) too
check_rc "cyg segv: record and import" 0 "$TRAZA" record -o cyg.tzr --import cyg -- "$P/crash.cyg" segv 10
check_contains "cyg segv: says the signal" "$OUT" "died of signal 11 ("
# SIGKILL cannot be caught: no ring dump, and the message says why
check_rc "SIGKILL: no dump" 1 "$TRAZA" record -o kill.tzr -- sh -c 'kill -9 $$'
check_contains "SIGKILL: the signal, not a question about -pg" "$OUT" "died of signal 9"
