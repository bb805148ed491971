#!/usr/bin/env bash
# /api/event: every field of one event of examples/demo.paje, the same values as
# `traza query --json`, its producer path and id, durations and the event sets that
# hold it; 400/404 for bad ids. And /api/stats of a window equals `traza stats
# --from --to` of that window (one rule: events overlapping it, durations clipped).
. "$(dirname "$0")/../lib.sh"
need_feature serve "server events"
root=$(cd "$(dirname "$0")/../.." && pwd)

"$TRAZA" import "$root/examples/demo.paje" -q >/dev/null
"$TRAZA" filter demo --type Message --name msgs >/dev/null
"$TRAZA" filter demo --regex 'key~^k1$' --name k1 >/dev/null
"$TRAZA" filter demo --type Timer --name timers >/dev/null
# event 15: the first Message link (Core0 -> Core1, key k1)
"$TRAZA" query demo --json --limit 0 >"$TMP/all.json"

start_server
[ -n "$PORT" ] || { fail "serve starts" "$(cat "$TMP/serve.out")"; exit 0; }
get() { python3 - "http://127.0.0.1:$PORT/api/$1" <<'PY'
import json, sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(sys.argv[1]); print(200); print(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code); print(e.read().decode())
PY
}

get "event?trace=demo&id=15&ticks=string" >"$TMP/ev.out"
check_eq "event 15: 200" 200 "$(head -1 "$TMP/ev.out")"
tail -n +2 "$TMP/ev.out" >"$TMP/ev.json"
python3 - "$TMP/ev.json" "$TMP/all.json" <<'PY' >"$TMP/cmp.out" 2>&1
import json, sys
ev = json.load(open(sys.argv[1]))
cli = next(e for e in json.load(open(sys.argv[2])) if e["id"] == 15)
bad = []
# every field the CLI writes, with ticks as strings
for k, v in cli.items():
    want = str(v) if k in ("ts", "end_ts") else v
    if ev.get(k) != want:
        bad.append((k, want, ev.get(k)))
expect = {"type": "Message", "type_id": 5, "category": "link", "producer": "0/Board/Core0", "producer_id": 2,
          "producer_name": "Core0", "end_producer": "0/Board/Core1", "end_producer_id": 3,
          "ts": "13000000", "end_ts": "14100000", "rel_ts": "13000000", "rel_end_ts": "14100000",
          "duration": "1100000", "time_unit": -9,
          "params": {"value": "Mailbox", "key": "k1", "container": 1},
          "results": [{"id": 1, "name": "msgs"}, {"id": 2, "name": "k1"}]}
for k, v in expect.items():
    if ev.get(k) != v:
        bad.append((k, v, ev.get(k)))
print(bad)
sys.exit(1 if bad else 0)
PY
if [ $? -eq 0 ]; then pass "event 15: every field as 'traza query --json', type/producer ids, path, durations, its 2 event sets"; else fail "event 15 fields" "$(cat "$TMP/cmp.out")"; fi

get "event?trace=demo&id=306" >"$TMP/last.out"
check_eq "the last event (306) answers" 200 "$(head -1 "$TMP/last.out")"
check_eq "the last event's duration is a number without ticks=string; it is in no set" \
  '3500000 []' "$(tail -n +2 "$TMP/last.out" | python3 -c 'import json,sys; e=json.load(sys.stdin); print(e["duration"], json.dumps(e["results"]))')"
get "event?trace=demo&id=307" >"$TMP/e.out"
check_eq "an unknown id: 404" 404 "$(head -1 "$TMP/e.out")"
check_contains "an unknown id: the error names it and the range" "$(sed -n 2p "$TMP/e.out")" '"error":"trace '"'"'demo'"'"' has no event 307 (ids are 1..306)","status":404'
get "event?trace=demo&id=0" >"$TMP/e.out"
check_eq "id 0: 400" 400 "$(head -1 "$TMP/e.out")"
get "event?trace=demo&id=x1" >"$TMP/e.out"
check_eq "a malformed id: 400" 400 "$(head -1 "$TMP/e.out")"
check_contains "a malformed id: the usual JSON error" "$(sed -n 2p "$TMP/e.out")" "\"error\":\"parameter 'id': expected an integer, got 'x1'\""
get "event?trace=demo" >"$TMP/e.out"
check_eq "no id: 400" 400 "$(head -1 "$TMP/e.out")"
get "event?trace=nosuch&id=1" >"$TMP/e.out"
check_eq "an unknown trace: 404" 404 "$(head -1 "$TMP/e.out")"

# The statistics of a window: the server and the CLI count the same events (those
# overlapping it: 80 here, while 76 start in it) with the same clipped durations.
from=100000000 to=200000000
"$TRAZA" stats demo --from $from --to $to --json >"$TMP/cli_stats.json"
get "stats?trace=demo&from=$from&to=$to" | tail -n +2 >"$TMP/api_stats.json"
python3 - "$TMP/cli_stats.json" "$TMP/api_stats.json" <<'PY' >"$TMP/st.out" 2>&1
import json, sys
c = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2]))
ct = sorted((t["name"], t["count"], t["duration"]) for t in c["types"])
at = sorted((t["name"], t["count"], t["duration"]) for t in a["types"])
cp = sorted((p["name"], p["count"], p["duration"]) for p in c["producers"])
ap = sorted((p["name"], p["count"], p["duration"]) for p in a["producers"])
print(c["total"], a["total"], ct, at, cp, ap)
sys.exit(0 if c["total"] == a["total"] == 80 and ct == at and cp == ap and not a["sampled"] else 1)
PY
if [ $? -eq 0 ]; then pass "/api/stats of [100ms, 200ms] equals 'traza stats --from --to' (80 events overlapping, every type and producer)"; else fail "/api/stats equals traza stats" "$(cat "$TMP/st.out")"; fi
check_eq "76 of them start in the window (the event table's rule)" 76 "$("$TRAZA" query demo --from $from --to $to --count)"

stop_server TERM
check_eq "serve stops cleanly" 0 "$RC"
