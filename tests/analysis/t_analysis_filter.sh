#!/usr/bin/env bash
# aggregate and callstack take the event filter of `traza query` (--type, --producer,
# --subtree, --category, --where, --regex, --set, --during): the analysis reads the
# events a filtered view shows, and a filtered run is saved under its own name.
. "$(dirname "$0")/../lib.sh"
"$TRAZA" gen --events 2000 --tree 2x2 --seed 5 --name g >/dev/null || { fail "gen"; exit 0; }
M1=$TRAZA_WORKSPACE/m1.txt M2=$TRAZA_WORKSPACE/m2.txt M3=$TRAZA_WORKSPACE/m3.txt

# --regex on the producer path keeps the producers a producer set of the same ones keeps
check_rc "producer set n1, n3" 0 "$TRAZA" filter g --regex 'producer~n[13]$' --producers --name ps
check_rc "aggregate --producers" 0 "$TRAZA" aggregate g --slices 7 --p 0.3 --producers ps --json --micro-out "$M1"
by_set=$OUT
check_rc "aggregate --regex producer~" 0 "$TRAZA" aggregate g --slices 7 --p 0.3 --regex 'producer~n[13]$' --json --micro-out "$M2"
check_eq "the same partition" "$by_set" "$OUT"
check_eq "the same micro-model" "$(cat "$M1")" "$(cat "$M2")"
check_eq "20 series: 2 producers x 10 types" "slices 7 series 20" "$(head -1 "$M2")"
check_eq "its total: the events query counts with that filter" \
  "$("$TRAZA" query g --regex 'producer~n[13]$' --count)" "$(echo "$OUT" | json_get parts.0.total)"
check_rc "aggregate --producer --producer" 0 "$TRAZA" aggregate g --slices 7 --p 0.3 --producer n1 --producer n3 --micro-out "$M3" --save byname
check_eq "by name too" "$(cat "$M1")" "$(cat "$M3")"
check_rc "aggregate --set (a producer set)" 0 "$TRAZA" aggregate g --slices 7 --p 0.3 --set ps --micro-out "$M3" --save byset
check_eq "a producer set as --set" "$(cat "$M1")" "$(cat "$M3")"

# the other filters: --type, --category, --where
check_rc "aggregate --type" 0 "$TRAZA" aggregate g --slices 7 --p 0.3 --type state1 --type punctual0 --micro-out "$M3" --save bytype
check_eq "one series per producer of each type" "slices 7 series 8" "$(head -1 "$M3")"
check_eq "the types' events" "$("$TRAZA" query g --type state1 --type punctual0 --count)" \
  "$(awk 'NR > 1 { for (i = 3; i <= NF; i++) s += $i } END { print s }' "$M3")"
check_rc "aggregate --category" 0 "$TRAZA" aggregate g --slices 7 --p 0.3 --category link --micro-out "$M3" --save bycat
check_eq "link events only" "$("$TRAZA" query g --category link --count)" \
  "$(awk 'NR > 1 { for (i = 3; i <= NF; i++) s += $i } END { print s }' "$M3")"

# a filtered run has its own default name: it never replaces the unfiltered run's result
check_rc "unfiltered aggregate" 0 "$TRAZA" aggregate g --slices 7 --p 0.3
check_eq "names by inputs" "aggregate:occurrences:7
aggregate:occurrences:7:ps
aggregate:occurrences:7:regex=producer~n[13]\$" \
  "$("$TRAZA" results g --json | python3 -c 'import json,sys; print("\n".join(sorted(r["name"] for r in json.load(sys.stdin) if r["name"].startswith("aggregate:"))))')"

# callstack: the calls are the states the filter keeps (tests/fixtures/callstack/calls.csv:
# on t1 main > a > b and b; on t2 main > a)
check_rc "import nested calls" 0 "$TRAZA" import "$TRAZA_SRC/tests/fixtures/callstack/calls.csv" --format csv --name calls
check_rc "callstack --regex producer~t1" 0 "$TRAZA" callstack calls --regex 'producer~t1' --json
check_eq "its calls: those query counts" "$("$TRAZA" query calls --regex 'producer~t1' --count)" "$(echo "$OUT" | json_get calls)"
check_eq "t1's profile: main 1, a 1, b 2" "main 1 100 60; a 1 30 20; b 2 20 20" \
  "$(echo "$OUT" | python3 -c 'import json,sys; print("; ".join("%s %d %d %d" % (f["name"], f["calls"], f["inclusive"], f["exclusive"]) for f in json.load(sys.stdin)["profile"]))')"
check_rc "event set of the b calls" 0 "$TRAZA" filter calls --type b --name bs
check_rc "callstack --set" 0 "$TRAZA" callstack calls --set bs --json
check_eq "the set's calls" "$("$TRAZA" query calls --set bs --count)" "$(echo "$OUT" | json_get calls)"
check_eq "2 calls of b" 2 "$(echo "$OUT" | json_get calls)"
check_rc "callstack --type a --producer t2" 0 "$TRAZA" callstack calls --type a --producer t2 --json
check_eq "one call" "$("$TRAZA" query calls --type a --producer t2 --count)" "$(echo "$OUT" | json_get calls)"
check_rc "callstack --help lists the filters" 0 "$TRAZA" callstack --help
check_contains "--regex" "$OUT" "--regex 'COL~RE'"
check_rc "aggregate --help lists the filters" 0 "$TRAZA" aggregate --help
check_contains "--regex" "$OUT" "--regex 'COL~RE'"

# a bad filter is refused with the option it came from, and nothing is saved
check_rc "callstack --regex without ~" 2 "$TRAZA" callstack calls --regex nocolumn
check_contains "says what is expected" "$OUT" "--regex: regular expression condition 'nocolumn': expected COLUMN~REGEX or COLUMN!~REGEX"
check_rc "aggregate --regex without ~" 2 "$TRAZA" aggregate g --regex nocolumn --save bad1
check_eq "the same words" "traza: --regex: regular expression condition 'nocolumn': expected COLUMN~REGEX or COLUMN!~REGEX" "$OUT"
check_rc "aggregate --where without operator" 2 "$TRAZA" aggregate g --where size --save bad2
check_eq "expected PARAM OP VALUE" "traza: --where: parameter condition 'size': expected PARAM OP VALUE with OP one of = != < > <= >=" "$OUT"
check_rc "aggregate --producer unknown" 1 "$TRAZA" aggregate g --producer nosuch --save bad3
check_contains "names it" "$OUT" "trace 'g' has no producer 'nosuch'"
check_rc "aggregate --model duration --category punctual" 2 "$TRAZA" aggregate g --model duration --category punctual --save bad4
check_eq "no states to read" "traza: the duration models read state events, which the filter's categories leave out" "$OUT"
check_rc "callstack --category link" 2 "$TRAZA" callstack calls --category link
check_eq "no calls to read" "traza: call profiles read state events, which the filter's categories leave out" "$OUT"
check_eq "nothing saved" "" "$("$TRAZA" results g | awk '$2 ~ /^bad/ { print $2 }')"

# anomaly, correlate and seqsearch take the filter too (their own --type/--producer name
# the series; --category, --where, --regex, --set and --during select its events)
check_rc "event set: state1 of n1 and n3" 0 "$TRAZA" filter g --type state1 --regex 'producer~n[13]$' --name s13
check_rc "event set: punctual0 of n1 and n3" 0 "$TRAZA" filter g --type punctual0 --regex 'producer~n[13]$' --name p13
anoms() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["anomalies"]), " ".join(str(a["id"]) for a in d["anomalies"]))'; }
check_rc "anomaly --regex" 0 "$TRAZA" anomaly g --type state1 --rule sigma --k 1.5 --regex 'producer~n[13]$' --json
filtered=$(echo "$OUT" | anoms)
check_rc "anomaly of the same events as a saved set" 0 "$TRAZA" anomaly g --series s13 --rule sigma --k 1.5 --json
check_eq "anomaly: the filtered series is the set's" "$(echo "$OUT" | anoms)" "$filtered"
check_rc "anomaly unfiltered" 0 "$TRAZA" anomaly g --type state1 --rule sigma --k 1.5 --json
check_eq "anomaly: the filter changes the answer" "different" "$([ "$(echo "$OUT" | anoms)" != "$filtered" ] && echo different)"
check_eq "anomaly: both results kept, each under its name" "anomalies:state1:duration
anomalies:state1:duration:regex=producer~n[13]\$" \
  "$("$TRAZA" results g --json | python3 -c 'import json,sys; print("\n".join(sorted(r["name"] for r in json.load(sys.stdin) if r["name"].startswith("anomalies:state1"))))')"
check_rc "correlate --regex" 0 "$TRAZA" correlate g --series state1 --with punctual0 --regex 'producer~n[13]$' --json
r_filtered=$(echo "$OUT" | json_get r)
check_rc "correlate the saved sets" 0 "$TRAZA" correlate g --series s13 --with p13 --json
check_eq "correlate: r of the filtered series = r of the sets" "$(echo "$OUT" | json_get r)" "$r_filtered"
check_rc "correlate unfiltered" 0 "$TRAZA" correlate g --series state1 --with punctual0 --json
check_eq "correlate: the filter changes r" "different" "$([ "$(echo "$OUT" | json_get r)" != "$r_filtered" ] && echo different)"
check_rc "correlate --rank --regex" 0 "$TRAZA" correlate g --series state1 --rank --regex 'producer~n[13]$' --json
check_eq "rank: every candidate is a series of n1 or n3" "18 0" \
  "$(echo "$OUT" | python3 -c 'import json,sys; r=json.load(sys.stdin)["ranking"]; print(len(r), sum(1 for e in r if not e["producer"].endswith(("/n1", "/n3"))))')"
check_rc "seqsearch --producer n1" 0 "$TRAZA" seqsearch g --pattern state1,punctual0 --producer n1 --json
# the instances, recomputed from n1's events: a state1 opens one (a later one restarts it),
# the next punctual0 closes it; the other events are the exceptions
want=$("$TRAZA" query g --type state1 --type punctual0 --producer n1 --json --limit 100000 | python3 -c '
import json,sys
ev=json.load(sys.stdin); inst=[]; pend=None
for e in ev:
    if e["type"]=="state1": pend=e["id"]
    elif pend is not None: inst.append([pend, e["id"]]); pend=None
print(len(inst), len(ev)-2*len(inst), inst[:3])')
check_eq "seqsearch: n1's instances and exceptions" "$want" \
  "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["instances"]), len(d["exceptions"]), d["instances"][:3])')"
check_eq "seqsearch: saved under a name of its own" "seq:state1,punctual0:producer=n1 seq:state1,punctual0:producer=n1:exceptions" \
  "$("$TRAZA" results g --json | python3 -c 'import json,sys; print(" ".join(sorted(r["name"] for r in json.load(sys.stdin) if r["name"].startswith("seq:"))))')"
check_rc "seqsearch --type keeps the pattern's types it names" 0 "$TRAZA" seqsearch g --pattern state1,punctual0 --type state1 --json --save onlyA
check_eq "seqsearch: no instance without the pattern's second type" "0 $("$TRAZA" query g --type state1 --count)" \
  "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["instances"]), len(d["exceptions"]))')"
check_rc "a saved set as series takes no --set" 2 "$TRAZA" anomaly g --series s13 --set p13
check_contains "says why" "$OUT" "series 's13' is a saved set: it takes no other set"
for tool in anomaly correlate seqsearch; do
  check_rc "$tool --help lists the filters" 0 "$TRAZA" $tool --help
  check_contains "$tool: --regex" "$OUT" "--regex 'COL~RE'"
done

# the server's /api/callstack reads the calls of the view's filter (result=, re.COLUMN=,
# types=, producers=), each filter apart from the unfiltered profile it keeps
start_server
if [ -n "$PORT" ]; then
  get() { curl -s -o "$TMP/body" -w '%{http_code}' "http://127.0.0.1:$PORT$1"; }
  prof() { python3 -c 'import json,sys; d=json.load(sys.stdin); print("; ".join("%s %d %d %d" % (f["name"], f["calls"], f["inclusive"], f["exclusive"]) for f in d["profile"]), len(d["calls"]), sorted({t["name"] for t in d["threads"] if t["calls"]}))'; }
  cli_prof() { "$TRAZA" callstack calls "$@" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print("; ".join("%s %d %d %d" % (f["name"], f["calls"], f["inclusive"], f["exclusive"]) for f in d["profile"]))'; }
  check_eq "/api/callstack unfiltered" 200 "$(get "/api/callstack?trace=calls")"
  check_eq "every call, both threads" "$(cli_prof) 6 ['t1', 't2']" "$(prof < "$TMP/body")"
  check_eq "/api/callstack re.producer=t1" 200 "$(get "/api/callstack?trace=calls&re.producer=t1")"
  check_eq "t1's calls only, the profile callstack --regex gives" "$(cli_prof --regex 'producer~t1') 4 ['t1']" "$(prof < "$TMP/body")"
  check_eq "/api/callstack result= (the event set of b's calls)" 200 "$(get "/api/callstack?trace=calls&result=bs")"
  check_eq "the set's calls, as callstack --set" "$(cli_prof --set bs) 2 ['t1']" "$(prof < "$TMP/body")"
  check_eq "/api/callstack unfiltered again (its cache untouched)" 200 "$(get "/api/callstack?trace=calls")"
  check_eq "every call again" "$(cli_prof) 6 ['t1', 't2']" "$(prof < "$TMP/body")"
  check_eq "/api/callstack nre.producer=t1 (the other thread)" 200 "$(get "/api/callstack?trace=calls&nre.producer=t1")"
  check_eq "t2's calls, as callstack --regex 'producer!~t1'" "$(cli_prof --regex 'producer!~t1') 2 ['t2']" "$(prof < "$TMP/body")"
  stop_server TERM
else
  fail "serve starts" "$(cat "$TMP/serve.out")"
fi
