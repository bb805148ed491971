#!/usr/bin/env bash
# longjmp out of four traced frames, 100 times: the skipped frames are closed, so the
# call after the loop nests under main again (-pg -mfentry and -finstrument-functions).
. "$(dirname "$0")/../lib.sh"
P=${TRAZA_BUILD:-build}/rt/tests
if [ ! -x "$P/crash.pre" ]; then skip "longjmp" "test programs not built ($P)"; exit 0; fi
cd "$TMP"
expect='    100             deep
    100           deep
    100         deep
    100       deep
    100     jumper
      1     work
      1   main'
for v in pre cyg; do
    check_rc "$v: record and import" 0 "$TRAZA" record -o j$v.tzr --import j$v -- "$P/crash.$v" jmp 100
    check_eq "$v: frames closed at the jump" "$expect" "$("$TRAZA" callstack j$v --tree | grep -v '^crash' | sort | uniq -c)"
done
