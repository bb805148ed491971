#!/usr/bin/env bash
# aggregate: memory and time that scale with what is asked. Up to 100000 slices (the
# documented range) are searched in at most 2000 units of consecutive slices, said so;
# the qualities of the parts stay exact (the same as with the slices as units).
. "$(dirname "$0")/../lib.sh"
"$TRAZA" gen --events 20000 --tree 2x3 --seed 5 --name g >/dev/null || { fail "gen"; exit 0; }

check_rc "100000 slices" 0 "$TRAZA" aggregate g --slices 100000 --p 0.3
check_contains "says the slices are grouped" "$OUT" "note: 100000 slices searched in 2000 units of 50-50 consecutive slices"
J=$("$TRAZA" aggregate g --slices 100000 --p 0.3 --json --save big)
check_eq "json: units" 2000 "$(echo "$J" | json_get units)"
check_eq "the last part ends at the last slice" 99999 "$(echo "$J" | python3 -c 'import json,sys; print(json.load(sys.stdin)["parts"][-1]["last"])')"
check_rc "2000 slices: no note" 0 "$TRAZA" aggregate g --slices 2000 --p 0.3 --save s2
check_eq "no grouping below the bound" 0 "$(printf "%s" "$OUT" | grep -c "note:")"
