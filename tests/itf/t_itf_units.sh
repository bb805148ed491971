#!/usr/bin/env bash
# Tarmac files stamped in ns or ps (a model's simulated time) are Tarmac, as those in
# tic, clk or cyc are: the same dialect and model, and a byte-exact round trip.
. tests/lib.sh
dir=$DATA/tarmac
if [ ! -d "$dir" ]; then skip "Tarmac time units" "$dir is absent"; exit 0; fi
for f in "$dir"/*.tarmac; do
  b=$(basename "$f" .tarmac)
  want=$("$TRAZA" itf compress "$f" -o "$TMP/$b.tzi" -q && "$TRAZA" itf stats "$TMP/$b.tzi" | awk '/^dialect/ {print $2}')
  for u in ps ns; do
    sed -E "s/^( *[0-9]+) (clk|tic|cyc) /\1 $u /" "$f" >"$TMP/$b.$u"
    grep -qE "^ *[0-9]+ $u " "$TMP/$b.$u" || { fail "$b in $u: the sample has time stamps"; continue; }
    check_rc "$b in $u compresses" 0 "$TRAZA" itf compress "$TMP/$b.$u" -o "$TMP/$b.$u.tzi" -q
    got=$("$TRAZA" itf stats "$TMP/$b.$u.tzi" | awk '/^dialect/ {print $2}')
    check_eq "$b in $u is read as $want" "$want" "$got"
    check_rc "$b in $u decompresses" 0 "$TRAZA" itf decompress "$TMP/$b.$u.tzi" -o "$TMP/$b.$u.out"
    cmp -s "$TMP/$b.$u" "$TMP/$b.$u.out" && pass "$b in $u: byte-exact" || fail "$b in $u: byte-exact"
  done
done
