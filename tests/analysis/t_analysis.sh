#!/usr/bin/env bash
# CLI of the analyses: anomaly, correlate (pair, rank), aggregate (paper example,
# --list-p --json, --svg, --spatial), seqsearch; results saved and reusable.
. "$(dirname "$0")/../lib.sh"
SRC=${TRAZA_SRC:-.}
BUILD=${TRAZA_BUILD:-$(dirname "$TRAZA")}
# The generator is built by `make tests` (tests/analysis/helper_mkgen.c).
MK=$BUILD/helpers/analysis/helper_mkgen
if [ ! -x "$MK" ]; then
  fail "analysis CLI" "missing $MK: run make tests"
  exit 0
fi
"$MK" "$TRAZA_WORKSPACE" flush flush 60 || { fail "generate flush trace"; exit 0; }
"$MK" "$TRAZA_WORKSPACE" paper paper || { fail "generate paper trace"; exit 0; }

check_rc "anomaly mad" 0 "$TRAZA" anomaly flush --type read --producer net --rule mad --svg "$TMP/a.svg"
check_contains "anomaly prints the rule" "$OUT" "rule mad"
check_contains "anomaly count" "$OUT" "84 anomalies"
check_rc "the same analysis again does not replace its result" 1 "$TRAZA" anomaly flush --type read --producer net --rule sigma
check_contains "it says so" "$OUT" "a result named 'anomalies:read@net:duration' already exists"
check_rc "the saved set is the first run's" 0 "$TRAZA" query flush --set anomalies:read@net:duration --count
check_eq "84 events kept" 84 "$OUT"
J=$("$TRAZA" anomaly flush --type read --producer net --rule mad --replace --json)
check_eq "anomaly json rule" "mad" "$(echo "$J" | json_get rule)"
check_eq "anomaly json keys" '["anomalies", "interval", "rule", "warnings"]' "$(echo "$J" | python3 -c 'import json,sys; print(json.dumps(sorted(json.load(sys.stdin))))')"
check_eq "anomaly json first ts" "2505303268" "$(echo "$J" | json_get anomalies.0.ts)"
check_contains "anomaly svg" "$(head -c 300 "$TMP/a.svg")" "<svg"

J=$("$TRAZA" correlate flush --series anomalies:read@net:duration --rank --json)
check_eq "rank: flush first" "flush" "$(echo "$J" | json_get ranking.0.type)"
check_eq "rank: flush producer" "host/disk" "$(echo "$J" | json_get ranking.0.producer)"
J=$("$TRAZA" correlate flush --anomalies-of read --producer net --rule mad --metric duration --rank --method irregular --json)
check_eq "anomalies-of rank: flush first" "flush" "$(echo "$J" | json_get ranking.0.type)"
check_rc "correlate pair irregular" 0 "$TRAZA" correlate flush --series anomalies:read@net:duration --with flush --method irregular --svg "$TMP/c.svg"
check_contains "correlate strong" "$OUT" "(strong"
check_contains "correlate svg" "$(cat "$TMP/c.svg")" "#d62728"
check_rc "correlate needs --with or --rank" 2 "$TRAZA" correlate flush --series read
check_rc "correlate unknown series" 1 "$TRAZA" correlate flush --series nothing --with read
check_contains "unknown series message" "$OUT" "not an event type"

J=$("$TRAZA" aggregate paper --slices 5 --from 0 --to 500 --list-p --json)
check_eq "paper partitions" "[[0, 1, 2, 3, 4], [0, 1, 1, 2, 3], [0, 0, 0, 1, 2], [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]]" \
  "$(echo "$J" | python3 -c 'import json,sys; print([e["parts"] for e in json.load(sys.stdin)["p_list"]])')"
check_eq "paper p values" "[0.0, 0.035, 0.052, 0.078, 0.223]" \
  "$(echo "$J" | python3 -c 'import json,sys; print([round(float(e["p"]),3) for e in json.load(sys.stdin)["p_list"]])')"
check_rc "aggregate svg" 0 "$TRAZA" aggregate paper --slices 5 --from 0 --to 500 --p 0.06 --svg "$TMP/g.svg"
check_contains "aggregate 3 parts" "$OUT" "3 parts"
check_contains "aggregate svg polyline" "$(cat "$TMP/g.svg")" "<polyline"
check_rc "aggregate spatial" 0 "$TRAZA" aggregate flush --slices 10 --spatial --p 0.5
check_contains "spatial parts" "$OUT" "host/"
check_rc "aggregate spatial svg" 0 "$TRAZA" aggregate flush --slices 10 --spatial --p 0.5 --svg "$TMP/st.svg" --json
NP=$(echo "$OUT" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["parts"]))')
check_eq "spatial svg: one block per part" "$NP" "$(grep -c 'class="stpart"' "$TMP/st.svg")"
FIRST=$(echo "$OUT" | python3 -c 'import json,sys; p=json.load(sys.stdin)["parts"][0]; print("%s%s: slices %d-%d" % (p["producer"], " (own)" if p["own"] else "", p["first"], p["last"]))')
check_contains "spatial svg names the parts" "$(cat "$TMP/st.svg")" "$FIRST"
check_rc "aggregate bad model" 2 "$TRAZA" aggregate paper --model nope

check_rc "seqsearch" 0 "$TRAZA" seqsearch flush --pattern 'flush,read' --max-gap 5ms
check_contains "seqsearch instances" "$OUT" "8 instances"
check_rc "seqsearch unknown type" 1 "$TRAZA" seqsearch flush --pattern 'flush,nope'
check_rc "help" 0 "$TRAZA" aggregate --help
check_contains "help text" "$OUT" "--list-p"

# correlate --svg: each series on its own y scale, so the small series (12 flushes)
# spans the plot height like the large one (84 slow reads) instead of drawing flat.
SPANS=$(awk '
  /<g fill="#4e79a7">/ { g = "a"; next }
  /<g fill="#f28e2b">/ { g = "b"; next }
  /<\/g>/ { g = ""; next }
  g != "" && /<circle/ { match($0, /cy="[0-9.]+"/); y = substr($0, RSTART + 4, RLENGTH - 5) + 0;
    if (!(g in lo) || y < lo[g]) lo[g] = y; if (!(g in hi) || y > hi[g]) hi[g] = y }
  END { printf "%d %d", hi["a"] - lo["a"], hi["b"] - lo["b"] }' "$TMP/c.svg")
check_eq "correlate svg: both series span most of the 240-px plot" "ok" \
  "$(set -- $SPANS; [ "$1" -ge 200 ] && [ "$2" -ge 200 ] && echo ok || echo "spans $SPANS")"
check_contains "correlate svg labels the axes" "$(cat "$TMP/c.svg")" "(right axis)"

# result names and the overwrite rule: a producer set is part of the default name;
# the same aggregation with another window is refused, the same one again is not
check_rc "a producer set" 0 "$TRAZA" filter flush --producers --type flush --name disks
check_rc "aggregate over a producer set" 0 "$TRAZA" aggregate flush --slices 8 --p 0.5 --producers disks
check_contains "saved under a name that tells the set" "$("$TRAZA" results flush)" "aggregate:occurrences:8:disks"
check_rc "aggregate over every producer" 0 "$TRAZA" aggregate flush --slices 8 --p 0.5
check_rc "the same aggregation again" 0 "$TRAZA" aggregate flush --slices 8 --p 0.5
check_rc "another window under the same name is refused" 1 "$TRAZA" aggregate flush --slices 8 --p 0.5 --from 1s
check_contains "naming what made the saved one" "$OUT" "a result named 'aggregate:occurrences:8' already exists, made by aggregate with slices=8 model=occurrences from="
check_rc "unless --replace" 0 "$TRAZA" aggregate flush --slices 8 --p 0.5 --from 1s --replace
