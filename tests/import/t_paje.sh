#!/usr/bin/env bash
# Pajé import against pj_dump on the shared real traces: for every trace pj_dump
# accepts, the imported counts of containers (producers), states, events, links and
# variables equal the entities pj_dump prints. native_paje.trace (rejected by
# pj_dump) gets an error naming the file and the line.
#
# pj_dump is run with "-e 1e300": by default it prints only the entities inside the
# window [trace start, trace end], and its binary search over that window drops
# zero-length entities that sit exactly at the end of the trace (simgrid-fg126.trace:
# 3 of its 6 links, all at time 0). With the window past the end it prints all of
# them; for every other shared trace both runs print the same entities.
. "$(dirname "$0")/../lib.sh"

PJ=$DATA/pajeng
if [ ! -d "$PJ" ]; then
  skip "paje-shared-traces" "$PJ is absent"
  exit 0
fi
if ! command -v pj_dump >/dev/null; then
  skip "paje-shared-traces" "pj_dump (Debian package pajeng) is not installed"
  exit 0
fi

for f in "$PJ"/*.trace; do
  n=$(basename "$f" .trace)
  if ! pj_dump -e 1e300 "$f" >"$TMP/$n.pj" 2>/dev/null; then
    continue # rejected by pj_dump: checked below
  fi
  if ! out=$("$TRAZA" import "$f" --name "$n" 2>&1); then
    fail "paje-import-$n" "$out"; continue
  fi
  want=$(awk -F', ' '{c[$1]++} END {printf "%d %d %d %d %d", c["Container"], c["State"], c["Event"], c["Link"], c["Variable"]}' "$TMP/$n.pj")
  got=$("$TRAZA" info "$n" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); c=d["categories"]; print(d["producers"], c["state"], c["punctual"], c["link"], c["variable"])')
  check_eq "paje-counts-$n (containers states events links variables)" "$want" "$got"
  total=$(($(tr ' ' + <<<"$want")))
  if [ "$want" == "$got" ]; then diff_row Paje "pj_dump -e 1e300" "$n.trace" "$total" agree; else diff_row Paje "pj_dump -e 1e300" "$n.trace" "$want vs $got" differ; fi
done

# The trace pj_dump rejects: a clear error with the line number, nothing imported.
check_rc "paje-native_paje-rejected" 1 "$TRAZA" import "$PJ/native_paje.trace" --name np
check_contains "paje-native_paje-line" "$OUT" "native_paje.trace:5: definition of PajeDefineContainerType"
check_contains "paje-native_paje-hint" "$OUT" "old field name 'ContainerType'"
check_rc "paje-native_paje-not-listed" 1 "$TRAZA" info np
