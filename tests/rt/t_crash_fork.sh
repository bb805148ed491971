#!/usr/bin/env bash
# fork(): one dump per process. The parent writes DUMP, the child DUMP with its pid
# before the extension (its buffer starts empty, main still open); the child then
# vforks and execs /bin/true (the executed program stays silent: TRAZA_RT_PID).
. "$(dirname "$0")/../lib.sh"
P=${TRAZA_BUILD:-build}/rt/tests
if [ ! -x "$P/crash.pre" ]; then skip "fork" "test programs not built ($P)"; exit 0; fi
cd "$TMP"
calls() { "$TRAZA" callstack "$1" --json | json_get profile | python3 -c 'import json,sys; print(" ".join("%s %s" % (f["name"], f["calls"]) for f in sorted(json.load(sys.stdin), key=lambda f: f["name"])))'; }
for mode in ring stream; do
    check_rc "$mode: record and import the parent" 0 "$TRAZA" record --mode $mode -o f$mode.tzr --import p$mode -- "$P/crash.pre" fork 1000
    child=$(printf '%s\n' "$OUT" | sed -n 's/^child //p')
    check_eq "$mode: two dumps" "f$mode.$child.tzr f$mode.tzr" "$(echo f$mode*.tzr)"
    check_eq "$mode: parent's calls" "main 1 work 1000" "$(calls p$mode)"
    check_rc "$mode: import the child's dump" 0 "$TRAZA" import --name c$mode f$mode.$child.tzr
    check_eq "$mode: child's calls (main open from the fork)" "main 1 work 1000" "$(calls c$mode)"
    check_contains "$mode: child's pid" "$("$TRAZA" info c$mode)" "$child"
done
