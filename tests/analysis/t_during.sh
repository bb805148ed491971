#!/usr/bin/env bash
# Annotations as time ranges: --during RESULT of query, stats, export, density, filter,
# aggregate, callstack and the server's during= keep the events that overlap one of the result's ranges.
# The paper trace: 68 punctual events on p0 from 0 to 428; from 100 to 249: a at
# 100-104 and 200-205, b at 120-122 and 220-221, c at 140-144 and 240-248.
. "$(dirname "$0")/../lib.sh"
BUILD=${TRAZA_BUILD:-$(dirname "$TRAZA")}
MK=$BUILD/helpers/analysis/helper_mkgen
if [ ! -x "$MK" ]; then
  fail "during" "missing $MK: run make tests"
  exit 0
fi
"$MK" "$TRAZA_WORKSPACE" paper paper || { fail "generate paper trace"; exit 0; }

# three parts [100, 149], [149, 199], [199, 249]: the 30 events from 100 to 241
check_rc "an aggregation saves its parts" 0 "$TRAZA" aggregate paper --slices 3 --from 100 --to 249 --p 0 --save parts
check_rc "query --during" 0 "$TRAZA" query paper --during parts --count
check_eq "the 30 events in the parts" 30 "$OUT"
check_rc "with another filter" 0 "$TRAZA" query paper --during parts --type a --count
check_eq "the 11 a events (100-104, 200-205)" 11 "$OUT"
check_rc "with a window: both hold" 0 "$TRAZA" query paper --during parts --from 0 --to 120 --count
check_eq "the 6 events from 100 to 120" 6 "$OUT"
check_rc "query --during --json" 0 "$TRAZA" query paper --during parts --limit 2 --offset 4 --json
check_eq "offset and limit count the kept events" "[104, 120]" \
  "$(echo "$OUT" | python3 -c 'import json,sys; print([e["ts"] for e in json.load(sys.stdin)])')"
check_rc "stats --during" 0 "$TRAZA" stats paper --during parts --json
check_eq "stats count the same events" 30 "$(echo "$OUT" | json_get total)"
check_rc "export --during" 0 "$TRAZA" export paper --during parts --format csv -o "$TMP/d.csv"
check_eq "export: a header and the 30 events" 31 "$(wc -l < "$TMP/d.csv")"
check_rc "filter --during saves them" 0 "$TRAZA" filter paper --during parts --type c --name cs
check_contains "the 14 c events (140-144, 240-248)" "$OUT" "saved event_set 'cs': 14 members"
# aggregate --during: the slices span the trace (or the window), the events are those
# of the ranges; a part's total is its events (model occurrences)
part_totals() { python3 -c 'import json,sys; print(" ".join("%g" % p["total"] for p in json.load(sys.stdin)["parts"]))'; }
check_rc "aggregate without --during" 0 "$TRAZA" aggregate paper --slices 4 --p 0 --json --save all4
check_eq "the 68 events in 4 slices" "21 15 13 19" "$(echo "$OUT" | part_totals)"
check_rc "aggregate --during" 0 "$TRAZA" aggregate paper --slices 4 --p 0 --during parts --json --save in4
check_eq "the 30 events of the ranges: 100-104 | 120-205 | 220-248 | none" "5 15 10 0" "$(echo "$OUT" | part_totals)"
check_rc "one part over all: its total" 0 "$TRAZA" aggregate paper --slices 4 --p 1 --during parts --json --save in1
check_eq "equals query --during --count" 30 "$(echo "$OUT" | part_totals)"
check_rc "aggregate --during with a window" 0 "$TRAZA" aggregate paper --slices 2 --p 1 --from 0 --to 120 --during parts --json --save w2
check_eq "the 6 events from 100 to 120, as query counts them" 6 "$(echo "$OUT" | part_totals)"
check_rc "the saved result tells its inputs" 0 "$TRAZA" results paper --json
check_contains "the during result among the params" "$OUT" "during=parts"
check_rc "aggregate --during an event set" 2 "$TRAZA" aggregate paper --during cs
check_contains "refused in the result's terms" "$OUT" "traza: result 'cs' is not a set of time ranges (its kind is event_set)"
check_rc "aggregate --help names --during" 0 "$TRAZA" aggregate --help
check_contains "in the options" "$OUT" "--during RESULT"
check_rc "a correlation's span as ranges" 0 "$TRAZA" correlate paper --series a --with b --slices 4 --save span
check_rc "query --during a correlation" 0 "$TRAZA" query paper --during span --count
check_eq "the 65 events of its span [0, 428] (of a and b; not the c at 440-442)" 65 "$OUT"

# callstack --during: the calls overlapping the ranges, each for its time inside them.
# tests/fixtures/callstack/calls.csv: on t1 main [0,100] > a [10,40] > b [20,30], and
# b [50,60]; on t2 main [0,50] > a [5,15]. The one part [45, 55]: main on t1 and t2, b.
check_rc "import nested calls" 0 "$TRAZA" import "$TRAZA_SRC/tests/fixtures/callstack/calls.csv" --format csv --name calls
check_rc "one part [45, 55]" 0 "$TRAZA" aggregate calls --slices 1 --from 45 --to 55 --p 0 --save mid
check_rc "callstack --during" 0 "$TRAZA" callstack calls --during mid --json
cs_mid=$OUT
check_eq "its calls: those query --during counts" "$("$TRAZA" query calls --during mid --count)" "$(echo "$cs_mid" | json_get calls)"
check_eq "3 calls: main on t1 and t2, b" 3 "$(echo "$cs_mid" | json_get calls)"
check_eq "times inside [45, 55]: main 10 + 5, b 5 (its own, not main's)" \
  "main 2 15 10; b 1 5 5" \
  "$(echo "$cs_mid" | python3 -c 'import json,sys; print("; ".join("%s %d %d %d" % (f["name"], f["calls"], f["inclusive"], f["exclusive"]) for f in json.load(sys.stdin)["profile"]))')"
check_rc "callstack --from 45 --to 55" 0 "$TRAZA" callstack calls --from 45 --to 55 --json
check_eq "one range: the profile of that window" \
  "$(echo "$cs_mid" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["profile"], d["callgraph"])')" \
  "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["profile"], d["callgraph"])')"
check_rc "the ranges [12, 52]" 0 "$TRAZA" aggregate calls --slices 1 --from 12 --to 52 --p 0 --save wide
check_rc "callstack --during with --from/--to" 0 "$TRAZA" callstack calls --during wide --from 45 --to 55 --json
check_eq "the times inside both: main 7 + 5, b 2" "main 2 12 10; b 1 2 2" \
  "$(echo "$OUT" | python3 -c 'import json,sys; print("; ".join("%s %d %d %d" % (f["name"], f["calls"], f["inclusive"], f["exclusive"]) for f in json.load(sys.stdin)["profile"]))')"
check_rc "callstack --help names --during" 0 "$TRAZA" callstack --help
check_contains "in the options" "$OUT" "--during RESULT"

# what is not a set of time ranges is refused, in the result's terms
check_rc "an event set is not time ranges" 2 "$TRAZA" query paper --during cs --count
check_contains "says what it is" "$OUT" "traza: result 'cs' is not a set of time ranges (its kind is event_set)"
check_rc "an unknown result" 1 "$TRAZA" query paper --during nope --count
check_rc "callstack --during an event set" 2 "$TRAZA" callstack paper --during cs
check_contains "refused as query refuses it" "$OUT" "traza: result 'cs' is not a set of time ranges (its kind is event_set)"
check_rc "--help names --during" 0 "$TRAZA" query --help
check_contains "in the filters" "$OUT" "--during RESULT"

start_server
if [ -n "$PORT" ]; then
  get() { curl -s -o "$TMP/body" -w '%{http_code}' "http://127.0.0.1:$PORT$1"; }
  check_eq "during= in /api/events" 200 "$(get "/api/events?trace=paper&during=parts&limit=1")"
  check_eq "its total" 30 "$(json_get total < "$TMP/body")"
  check_eq "during= of an event set: 400" 400 "$(get "/api/events?trace=paper&during=cs&limit=1")"
  check_contains "with the message" "$(cat "$TMP/body")" "result 'cs' is not a set of time ranges"
  prof() { python3 -c 'import json,sys; d=json.load(sys.stdin); print("; ".join("%s %d %d %d" % (f["name"], f["calls"], f["inclusive"], f["exclusive"]) for f in d["profile"]), len(d["calls"]))'; }
  check_eq "during= in /api/callstack" 200 "$(get "/api/callstack?trace=calls&during=mid")"
  check_eq "the profile callstack --during gives, and its 3 calls" "main 2 15 10; b 1 5 5 3" "$(prof < "$TMP/body")"
  check_eq "during= with a window in /api/callstack" 200 "$(get "/api/callstack?trace=calls&during=wide&from=45&to=55")"
  check_eq "the times inside both, as the CLI's" "main 2 12 10; b 1 2 2 3" "$(prof < "$TMP/body")"
  check_eq "without during=: the whole profile" 200 "$(get "/api/callstack?trace=calls")"
  check_eq "every call" 6 "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["calls"]))' < "$TMP/body")"
  check_eq "during= of an event set in /api/callstack: 400" 400 "$(get "/api/callstack?trace=paper&during=cs")"
  # threads: the deepest level in the window; t2 (main [0,50] > a) has no call in [60, 100]
  check_eq "/api/callstack of [60, 100]" 200 "$(get "/api/callstack?trace=calls&from=60&to=100")"
  check_eq "t1: main and b, two levels; t2: no call" "t1 1 2; t2 1 0" \
    "$(python3 -c 'import json,sys; print("; ".join("%s %d %d" % (t["name"], t["max_level"], t["calls"]) for t in json.load(sys.stdin)["threads"]))' < "$TMP/body")"
  per_slice() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%g" % sum(t["values"][k] for t in d["types"]) for k in range(d["slices"])))'; }
  check_eq "during= in /api/aggregate" 200 "$(get "/api/aggregate?trace=paper&slices=4&during=parts")"
  check_eq "the 30 events of the ranges per slice, as aggregate --during" "5 15 10 0" "$(per_slice < "$TMP/body")"
  check_eq "/api/aggregate without during=" 200 "$(get "/api/aggregate?trace=paper&slices=4")"
  check_eq "the 68 events per slice" "21 15 13 19" "$(per_slice < "$TMP/body")"
  check_eq "during= of an event set in /api/aggregate: 400" 400 "$(get "/api/aggregate?trace=paper&during=cs")"
  stop_server TERM
else
  fail "serve starts" "$(cat "$TMP/serve.out")"
fi
