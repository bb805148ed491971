#!/usr/bin/env bash
# An import that runs out of space fails with a clear error and leaves the
# workspace exactly as it was. "Disk full" is simulated with a file-size limit
# (ulimit -f, SIGXFSZ ignored), so writes past it fail with EFBIG as on a full disk.
. tests/lib.sh
check_rc "a first trace" 0 "$TRAZA" import examples/demo.kptrace --name before
"$TRAZA" gen --name big --events 300000 -o "$TMP/big.csv" --format csv >/dev/null 2>&1 || \
  "$TRAZA" gen --events 300000 -o "$TMP/big.csv" --format csv >/dev/null
[ -s "$TMP/big.csv" ] && pass "generated a 300k-event CSV" || fail "generated a 300k-event CSV"
snapshot() { (cd "$TRAZA_WORKSPACE" && ls traces | sort && "$TRAZA" list --json); }
before=$(snapshot)
# 2 MiB is far below what 300k events need, far above the catalogue.
OUT=$( (trap '' XFSZ; ulimit -f 2048; "$TRAZA" import "$TMP/big.csv" --name big) 2>&1 ); rc=$?
check_eq "import fails when space runs out" 1 "$rc"
check_contains "the error says why" "$OUT" "the disk is full or a file-size limit was reached"
after=$(snapshot)
check_eq "workspace unchanged" "$before" "$after"
check_rc "the other trace still reads" 0 "$TRAZA" query before --count
check_eq "its events" 403 "$OUT"
check_rc "the import works with space" 0 "$TRAZA" import "$TMP/big.csv" --name big
