#!/usr/bin/env bash
# The web UI's details panel, hover tooltip and event search (web/test/details.mjs in
# Debian's chromium headless), checked against the CLI: `traza query --json` for the
# fields of an event, `traza query --regex --count` for the number of search hits,
# `traza stats --from --to` for the statistics of a brushed range.
# Screenshots: $TRAZA_BUILD/web-test/details-*.png.
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
need_browser "details panel, tooltip and search"

"$TRAZA" import "$root/examples/demo.paje" -q >/dev/null
"$TRAZA" filter demo --type Message --name msgs >/dev/null
"$TRAZA" filter demo --regex 'key~^k1$' --name k1 >/dev/null
"$TRAZA" query demo --json --limit 0 >"$TMP/events.json"
# search: a regex over the type (the column chosen in the list) and over a parameter
# (COLUMN~RE typed in the box); N and the first hits from the CLI
search_case() { # COL RE TEXT
  local n hits
  n=$("$TRAZA" query demo --regex "$1~$2" --count)
  hits=$("$TRAZA" query demo --regex "$1~$2" --json --limit 2 | python3 -c 'import json,sys; print(json.dumps([e["id"] for e in json.load(sys.stdin)]))')
  printf '{"col":"%s","re":"%s","text":"%s","count":%s,"hits":%s}' "$1" "$2" "$3" "$n" "$hits"
}
s1=$(search_case type '^Mess' '^Mess')
s2=$(search_case key '^k[12]$' 'key~^k[12]$')
lttng_json=null
lttng=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ -d "$lttng" ] && "$TRAZA" import "$lttng" --name lttng -q >/dev/null 2>&1; then
  first=$("$TRAZA" query lttng --json --limit 1 | python3 -c 'import json,sys; e=json.load(sys.stdin)[0]; print(json.dumps({"id":e["id"],"type":e["type"],"producer":e["producer"]}))')
  re='^sched_sw'
  lttng_json=$(printf '{"trace":"lttng","first":%s,"re":"%s","count":%s}' "$first" "$re" "$("$TRAZA" query lttng --regex "type~$re" --count)")
else
  skip "the LTTng trace in the details test" "$lttng is absent or does not import"
fi
# event 15: the first Message link, Core0 -> Core1, 1.1 ms at +13 ms, in sets msgs and k1
cat >"$TMP/expect.json" <<JSON
{"trace":"demo","events":$(cat "$TMP/events.json"),
 "row":15,"row_duration":"1.100 ms","row_start_rel":"+13 ms","row_start_abs":"0.013 000 000 s",
 "row_sets":["msgs","k1"],"row_type_id":5,"row_producer_id":2,
 "dispatch":306,"search":[$s1,$s2],"lttng":$lttng_json}
JSON

start_server
[ -n "$PORT" ] || { fail "serve starts" "$(cat "$TMP/serve.out")"; exit 0; }
shots=${TRAZA_BUILD:-$root/build}/web-test
mkdir -p "$shots"
(cd "$root/web" && TRAZA="$TRAZA" timeout 180 node test/details.mjs "http://127.0.0.1:$PORT/" "$shots" "$TMP/expect.json") >"$TMP/details.out" 2>&1
brc=$?
cat "$TMP/details.out"
[ $brc -eq 0 ] || grep -q '^FAIL: ' "$TMP/details.out" || fail "details browser test exited $brc" "$(tail -20 "$TMP/details.out")"
stop_server TERM
check_eq "serve stops cleanly after the details test" 0 "$RC"
