#!/usr/bin/env bash
# The analyses' defaults on the synthetic flush trace (a reader blocked by a periodic
# flush, the anomaly paper's case study): --rank finds the flush with no options,
# doubtful results carry warnings (stderr and --json), invalid options are refused.
. "$(dirname "$0")/../lib.sh"
BUILD=${TRAZA_BUILD:-$(dirname "$TRAZA")}
MK=$BUILD/helpers/analysis/helper_mkgen
if [ ! -x "$MK" ]; then
  fail "defaults" "missing $MK: run make tests"
  exit 0
fi
"$MK" "$TRAZA_WORKSPACE" flush f 120 || { fail "generate flush trace"; exit 0; }
first() { python3 -c 'import json,sys; d=json.load(sys.stdin); e=d["ranking"][0]; print("%s@%s %.6f %d" % (e["type"], e["producer"], e["r"], len(d["warnings"])))'; }

for m in period duration; do
  J=$("$TRAZA" correlate f --anomalies-of read --producer net --metric $m --rank --json 2>"$TMP/err")
  check_eq "defaults, $m: the flush first, r = 1, no warning" "flush@host/disk 1.000000 0" "$(echo "$J" | first)"
  check_eq "defaults, $m: nothing on stderr" "" "$(cat "$TMP/err")"
  J=$("$TRAZA" correlate f --anomalies-of read --producer net --metric $m --rank --method irregular --replace --json)
  check_eq "irregular, $m: the flush first" "flush@host/disk 1.000000 0" "$(echo "$J" | first)"
done
check_rc "anomaly: mad by default" 0 "$TRAZA" anomaly f --type read --producer net --metric period --save p1
check_contains "168 stalled periods (24 flushes x 7)" "$OUT" "rule mad (median +- k MAD), k = 3"
check_contains "their count" "$OUT" "168 anomalies"

# The paper's rule and slicing stay selectable, with a warning.
W="rule ci99 flags 11605 of 11605 periods: it bounds the mean, not single values; the mad rule tests single values"
check_rc "ci99 selectable" 0 "$TRAZA" anomaly f --type read --producer net --metric period --rule ci99 --save p2
check_contains "ci99 warns on stderr" "$OUT" "traza: warning: $W"
J=$("$TRAZA" correlate f --anomalies-of read --producer net --metric period --rule ci99 --slices paper --rank --json --save p3 --replace 2>/dev/null)
check_eq "ci99 warning in --json" "$W" "$(echo "$J" | json_get warnings.0)"
check_rc "regular over 6 slices" 0 "$TRAZA" correlate f --series flush --with timer --slices 6
check_contains "constant series warning" "$OUT" "traza: warning: series flush is constant over the 6 slices: r is undefined (0)"
check_contains "6 slices" "$OUT" "regular: 6 slices of [370000000, 119370000000]"
check_rc "paper slices: floor(sqrt(24 + 120)) = 12" 0 "$TRAZA" correlate f --series flush --with timer --slices paper --replace
check_contains "12 slices" "$OUT" "regular: 12 slices"
check_rc "irregular that merges into one interval" 0 "$TRAZA" correlate f --series flush --with timer --method irregular --delta 10s
check_contains "merge warning" "$OUT" "traza: warning: irregular: the intervals within delta 10000000000 of the points merged into 1 interval: r is undefined; a smaller delta separates them"

# Invalid options: exit 2 and a precise message.
bad() { check_rc "refused: $1" 2 "$TRAZA" correlate f --series flush --with timer $1; check_contains "message: $1" "$OUT" "$2"; }
bad "--delta -5ms" "--delta must be a positive duration, not '-5ms'"
bad "--delta 0" "--delta must be a positive duration, not '0'"
bad "--k 0" "--k must be a positive number, not '0'"
bad "--slices 1" "--slices must be auto, paper or a count from 2 to 100000, not '1'"
bad "--slices 100001" "--slices must be auto, paper or a count from 2 to 100000, not '100001'"
bad "--top 0" "--top must be a count of at least 1, or all, not '0'"
bad "--rule nope" "--rule must be mad, sigma or ci99, not 'nope'"
bad "--method nope" "--method must be regular or irregular, not 'nope'"
bad "--metric nope" "--metric must be duration or period, not 'nope'"
check_rc "anomaly --k -1 refused" 2 "$TRAZA" anomaly f --type read --k -1
check_contains "its message" "$OUT" "--k must be a positive number, not '-1'"
