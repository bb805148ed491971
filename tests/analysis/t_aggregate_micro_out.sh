#!/usr/bin/env bash
# aggregate --micro-out: the values aggregated, one line per series, so that another
# implementation (bench/aggregate.sh runs lpaggreg on it) aggregates the same model.
. "$(dirname "$0")/../lib.sh"
"$TRAZA" gen --events 2000 --tree 2x2 --seed 5 --name g >/dev/null || { fail "gen"; exit 0; }
M=$TRAZA_WORKSPACE/micro.txt

check_rc "micro-out" 0 "$TRAZA" aggregate g --slices 7 --p 0.3 --micro-out "$M"
check_eq "header" "slices 7 series 40" "$(head -1 "$M")"
check_eq "one line per series, producer, type and 7 values" "40 9" \
  "$(awk 'NR > 1 { n++; if (NF != 9) bad = NF } END { print n, bad ? bad : 9 }' "$M")"
# occurrences: per slice, the series add up to the events starting in it
D=$("$TRAZA" density g --slices 7 --json | python3 -c 'import json,sys; print(" ".join(str(c) for c in json.load(sys.stdin)["counts"]))')
check_eq "slice sums are the density counts" "$D" \
  "$(awk 'NR > 1 { for (i = 3; i <= NF; i++) s[i] += $i } END { for (i = 3; i <= NF; i++) printf "%s%d", (i > 3 ? " " : ""), s[i]; print "" }' "$M")"
check_eq "first series" "2 8 8 3 10 3 6 6 3" "$(sed -n 2p "$M")"

check_rc "after --normalize" 0 "$TRAZA" aggregate g --slices 7 --p 0.3 --normalize --micro-out "$M" --save n
check_eq "every series' maximum is 1" 40 "$(awk 'NR > 1 { m = 0; for (i = 3; i <= NF; i++) if ($i > m) m = $i; if (m == 1) n++ } END { print n }' "$M")"

check_rc "unwritable file" 1 "$TRAZA" aggregate g --slices 7 --p 0.3 --micro-out /nonexistent/dir/m.txt --save bad
check_contains "says which file and why" "$OUT" "/nonexistent/dir/m.txt: cannot write: No such file or directory"
check_eq "nothing saved on failure" "n" "$("$TRAZA" results g | awk '$2 == "n" || $2 == "bad" { print $2 }')"
