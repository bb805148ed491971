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

# A full disk: the workspace is still read (SQLite's WAL would need a 32 KiB -shm
# file), and writing says why. A tmpfs filled to its last block.
FULL="$TMP/full"
mkdir -p "$FULL"
if mount -t tmpfs -o size=1m tmpfs "$FULL" 2>/dev/null; then
  export TRAZA_WORKSPACE="$FULL/ws"
  "$TRAZA" import examples/demo.kptrace --name demo -q >/dev/null
  dd if=/dev/zero of="$FULL/fill" bs=4k 2>/dev/null
  check_eq "the tmpfs is full" 0 "$(df --output=avail -k "$FULL" | tail -1 | tr -d ' ')"
  check_rc "full disk: list" 0 "$TRAZA" list
  check_contains "full disk: list shows the trace" "$OUT" "demo"
  check_rc "full disk: query" 0 "$TRAZA" query demo --count
  check_eq "full disk: query counts the events" 403 "$OUT"
  check_rc "full disk: stats" 0 "$TRAZA" stats demo
  check_contains "full disk: stats counts the events" "$OUT" "403 events"
  check_rc "full disk: import fails" 1 "$TRAZA" import examples/demo.kptrace --name other -q
  check_eq "full disk: import says why" "traza: $FULL/ws: the workspace is read-only (its disk is full): cannot import a trace" "$OUT"
  rm -f "$FULL/fill"
  check_rc "with space again: import" 0 "$TRAZA" import examples/demo.kptrace --name other -q
  check_rc "with space again: both traces" 0 "$TRAZA" list --json
  check_contains "with space again: the new trace is listed" "$OUT" '"other"'
  umount "$FULL"
else
  skip "full disk: reading" "mounting a tmpfs is not permitted here"
fi

# Every command that writes a file writes it whole or not at all: on a full disk it
# fails with the reason, and a file it would replace keeps its old contents.
export TRAZA_WORKSPACE="$TMP/ws"
python3 -c "
import random; random.seed(1)
print('\n'.join('%x' % (0x400000 + random.randrange(5000) * 4) for _ in range(20000)))" >"$TMP/pcs.txt"
"$TRAZA" grammar compress "$TMP/pcs.txt" -o "$TMP/pcs.tzg" >/dev/null 2>&1
"$TRAZA" itf compress "$TMP/pcs.txt" -o "$TMP/pcs.tzi" >/dev/null 2>&1
SMALL="$TMP/small"
mkdir -p "$SMALL"
if mount -t tmpfs -o size=64k tmpfs "$SMALL" 2>/dev/null; then
  # full_write NAME FILE CMD...: FILE (in $SMALL) exists with old contents and the
  # tmpfs is full while CMD writes it.
  full_write() {
    local name=$1 out=$2; shift 2
    rm -f "$SMALL"/*
    echo "old contents" >"$out"
    dd if=/dev/zero of="$SMALL/fill" bs=4k 2>/dev/null
    check_rc "full disk: $name fails" 1 "$@"
    check_contains "full disk: $name says why" "$OUT" "No space left on device"
    check_eq "full disk: $name leaves the old file" "old contents" "$(cat "$out")"
    check_eq "full disk: $name leaves no temporary" "fill $(basename "$out")" "$(ls "$SMALL" | sort | tr '\n' ' ' | sed 's/ $//')"
  }
  full_write "grammar compress" "$SMALL/out.tzg" "$TRAZA" grammar compress "$TMP/pcs.txt" -o "$SMALL/out.tzg"
  # a grammar expands to more than a full disk holds: refused before writing
  rm -f "$SMALL"/*; echo "old contents" >"$SMALL/out.txt"; dd if=/dev/zero of="$SMALL/fill" bs=4k 2>/dev/null
  check_rc "full disk: grammar decompress fails" 1 "$TRAZA" grammar decompress "$TMP/pcs.tzg" -o "$SMALL/out.txt"
  check_contains "full disk: grammar decompress says why" "$OUT" \
    "$SMALL/out.txt: the grammar expands to 20000 symbols, at least 180000 bytes, and that file system has 0 bytes free: nothing written"
  check_eq "full disk: grammar decompress leaves the old file" "old contents" "$(cat "$SMALL/out.txt")"
  # a small grammar of a long sequence (a decompression bomb in miniature): 400 bytes
  # that expand to 2 M lines are refused on a 64 KiB file system, and nothing is left
  rm -f "$SMALL"/*
  python3 -c "print('0x1000\n' * 2000000, end='')" | "$TRAZA" grammar compress - -o "$TMP/bomb.tzg" >/dev/null 2>&1
  check_rc "a grammar that expands past the free space is refused" 1 "$TRAZA" grammar decompress "$TMP/bomb.tzg" -o "$SMALL/out.txt"
  check_contains "the refusal gives the expansion and the room" "$OUT" "expands to 2000000 symbols, at least 18000000 bytes"
  check_eq "the refusal writes nothing" "" "$(ls "$SMALL")"
  full_write "gen -o" "$SMALL/out.csv" "$TRAZA" gen --events 2000 -o "$SMALL/out.csv" --format csv
  full_write "export" "$SMALL/out.csv" "$TRAZA" export before --format csv -o "$SMALL/out.csv"
  full_write "report" "$SMALL/out.html" "$TRAZA" report before -o "$SMALL/out.html"
  full_write "stats --svg" "$SMALL/out.svg" "$TRAZA" stats before --svg "$SMALL/out.svg"
  full_write "density --svg" "$SMALL/out.svg" "$TRAZA" density before --svg "$SMALL/out.svg"
  full_write "aggregate --svg" "$SMALL/out.svg" "$TRAZA" aggregate before --svg "$SMALL/out.svg"
  if [ -s "$TMP/pcs.tzi" ]; then
    full_write "itf compress" "$SMALL/out.tzi" "$TRAZA" itf compress "$TMP/pcs.txt" -o "$SMALL/out.tzi"
    full_write "itf decompress" "$SMALL/out.txt" "$TRAZA" itf decompress "$TMP/pcs.tzi" -o "$SMALL/out.txt"
  else
    skip "full disk: itf" "itf compress does not take this input"
  fi
  rm -f "$SMALL"/*
  echo "old contents" >"$SMALL/out.tzg"
  check_rc "with space: grammar compress" 0 "$TRAZA" grammar compress "$TMP/pcs.txt" -o "$SMALL/out.tzg"
  check_rc "with space: the whole file replaces the old one" 0 cmp "$TMP/pcs.tzg" "$SMALL/out.tzg"
  umount "$SMALL"
else
  skip "full disk: atomic outputs" "mounting a tmpfs is not permitted here"
fi
