#!/usr/bin/env bash
# Snapshot on demand: with TRAZA_RT_SNAPSHOT_SIGNAL set, that signal writes the ring as
# it is to out.snapN.tzr and the program runs on (crash.c snap: 100 calls, SIGUSR2,
# 100 more, SIGUSR2), preloaded (-pg) and linked in (-finstrument-functions).
. "$(dirname "$0")/../lib.sh"
P=${TRAZA_BUILD:-build}/rt/tests
if [ ! -x "$P/crash.pre" ]; then skip "snapshot" "test programs not built ($P)"; exit 0; fi
cd "$TMP"
for v in pre cyg; do
    TRAZA_RT_SNAPSHOT_SIGNAL=USR2 check_rc "$v: record" 0 "$TRAZA" record -o $v.tzr --import $v -- "$P/crash.$v" snap 100
    check_contains "$v: the program ran on" "$OUT" "snaps 2"
    for i in 1 2; do
        check_rc "$v: snapshot $i imported" 0 env TRAZA_RT_EXE="$P/crash.$v" "$TRAZA" import --name $v$i $v.snap$i.tzr
        check_eq "$v: snapshot $i holds the calls so far" "$(printf '%7d     work\n      1   main' $((100 * i)))" \
            "$("$TRAZA" callstack $v$i --tree | grep -v '^crash' | sort | uniq -c | sort -k2)"
    done
    check_eq "$v: the final dump" "$(printf '    200     work\n      1   main')" \
        "$("$TRAZA" callstack $v --tree | grep -v '^crash' | sort | uniq -c | sort -k2)"
done
# no variable, no handler: SIGUSR2 keeps its default action (the program dies of it)
check_rc "unset: SIGUSR2 is the program's" 1 "$TRAZA" record -o u.tzr -- "$P/crash.pre" snap 10
check_contains "unset: died of it" "$OUT" "died of signal 12"
check_eq "unset: no snapshot" "" "$(ls u.snap*.tzr 2>/dev/null)"
# By a control file: with TRAZA_RT_SNAPSHOT_FILE set, the file appearing writes the
# snapshot, then the file is removed (the program waits for that before going on) (crash.c file: 100 calls, creates the file, waits until it
# is gone, 100 more): snapshot 1 holds the first 100 calls, the dump all 200.
for v in pre cyg; do
    TRAZA_RT_SNAPSHOT_FILE=$TMP/snap.now check_rc "$v: record with a control file" 0 "$TRAZA" record -o f$v.tzr --import f$v -- "$P/crash.$v" file 100 "$TMP/snap.now"
    check_contains "$v: the control file was taken" "$OUT" "consumed 1"
    check_rc "$v: the control file's snapshot imported" 0 env TRAZA_RT_EXE="$P/crash.$v" "$TRAZA" import --name f${v}1 f$v.snap1.tzr
    check_eq "$v: it holds the calls made before the file appeared" "$(printf '    100     work\n      1   main')" \
        "$("$TRAZA" callstack f${v}1 --tree | grep -v '^crash' | sort | uniq -c | sort -k2)"
    check_eq "$v: one snapshot" "f$v.snap1.tzr" "$(ls f$v.snap*.tzr)"
    check_eq "$v: the final dump, with the watcher's thread not in it" "$(printf '    200     work\n      1   main')" \
        "$("$TRAZA" callstack f$v --tree | grep -v '^crash' | sort | uniq -c | sort -k2)"
done
