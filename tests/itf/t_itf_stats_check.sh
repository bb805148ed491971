#!/usr/bin/env bash
# `traza itf stats` refuses a damaged file: a flipped dialect or lossy bit in the header
# (the header check), a damaged chunk frame (stats checks every frame's CRC-32), bytes
# appended to a file and a file cut short.
source "$(dirname "$0")/../lib.sh"
D=$(dirname "$0")/data
"$TRAZA" itf compress "$D/v4_blocks.itf" -o "$TMP/b.tzi" --chunk 300 -q
check_rc "stats of a whole file" 0 "$TRAZA" itf stats "$TMP/b.tzi"
flip() { # flip FILE OFFSET MASK OUT
  python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[int(sys.argv[2])]^=int(sys.argv[3]); open(sys.argv[4],"wb").write(b)' "$@"
}
flip "$TMP/b.tzi" 7 4 "$TMP/dialect.tzi"
check_eq "stats: a flipped dialect bit is refused" "traza: $TMP/dialect.tzi: tzi: header checksum mismatch (corrupted header)" \
  "$("$TRAZA" itf stats "$TMP/dialect.tzi" 2>&1 >/dev/null)"
flip "$TMP/b.tzi" 9 1 "$TMP/lossy.tzi"
check_rc "stats: a flipped lossy bit is refused" 1 "$TRAZA" itf stats "$TMP/lossy.tzi"
# a byte in the middle of chunk 1's frame (chunk 0 starts at byte 16)
len0=$(python3 -c 'import struct,sys; print(struct.unpack_from("<I", open(sys.argv[1],"rb").read(), 16)[0])' "$TMP/b.tzi")
off1=$((16 + 8 + len0))
flip "$TMP/b.tzi" $((off1 + 12)) 16 "$TMP/frame.tzi"
check_contains "stats: a damaged chunk frame is refused" "$("$TRAZA" itf stats "$TMP/frame.tzi" 2>&1 >/dev/null)" \
  "traza: tzi: checksum mismatch in frame at offset $off1 "
check_rc "stats --json: a damaged chunk frame is refused" 1 "$TRAZA" itf stats "$TMP/frame.tzi" --json
# bytes appended to a whole file are said to be so, with the file's real end; a file
# cut short is truncated
size=$(stat -c %s "$TMP/b.tzi")
{ cat "$TMP/b.tzi"; printf 'xyz'; } >"$TMP/appended.tzi"
check_eq "stats: appended bytes are named" "traza: $TMP/appended.tzi: tzi: 3 bytes after the end of the file (its footer ends at byte $size)" \
  "$("$TRAZA" itf stats "$TMP/appended.tzi" 2>&1 >/dev/null)"
head -c $((size - 5)) "$TMP/b.tzi" >"$TMP/cut.tzi"
check_eq "stats: a file cut short is truncated" "traza: $TMP/cut.tzi: tzi: truncated file: footer magic 'TZIE' missing at the end" \
  "$("$TRAZA" itf stats "$TMP/cut.tzi" 2>&1 >/dev/null)"
