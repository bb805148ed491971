#!/usr/bin/env bash
# The differential suite's table: check_diff writes one row per compared sample into
# $TRAZA_BUILD/differential/AREA_SCRIPT.tsv (emptied when the script starts again),
# tests/diff_summary.sh prints the rows and the per-format tally.
. "$(dirname "$0")/../lib.sh"

lib="$TRAZA_SRC/tests/lib.sh"
fake() { TRAZA_BUILD=$TMP/b bash -c ". \"$lib\"; $1" "$TMP/area/t_fake.sh"; }
checks=$(fake 'check_diff one CTF babeltrace2 s1 12 12; check_diff two CTF babeltrace2 s2 5 6; diff_row Paje pj_dump p.trace 7 agree')
check_eq "check_diff passes and fails as check_eq" "PASS: one
FAIL: two
  expected: 5
  actual:   6" "$checks"
check_eq "the rows" "CTF	babeltrace2	s1	12	agree
CTF	babeltrace2	s2	5 vs 6	differ
Paje	pj_dump	p.trace	7	agree" "$(cat "$TMP/b/differential/area_t_fake.tsv")"
check_eq "the table" "   format     reference tool             sample                                                   events compared  result
   CTF        babeltrace2                s1                                                                    12  agree
   CTF        babeltrace2                s2                                                                5 vs 6  differ
   Paje       pj_dump                    p.trace                                                                7  agree
   per format and tool:
   CTF        babeltrace2                2 samples, 1 agree
   Paje       pj_dump                    1 samples, 1 agree" "$(bash "$TRAZA_SRC/tests/diff_summary.sh" "$TMP/b")"
fake 'check_diff again CTF babeltrace2 s3 1 1' >/dev/null
check_eq "a script run again replaces its rows" "CTF	babeltrace2	s3	1	agree" "$(cat "$TMP/b/differential/area_t_fake.tsv")"
check_eq "no rows: said so" "   (no differential comparison ran)" "$(bash "$TRAZA_SRC/tests/diff_summary.sh" "$TMP/empty")"
