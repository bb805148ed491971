#!/usr/bin/env bash
# /api/correlate with anomalies_of= ranks the probable causes of the anomalies of a
# series exactly as `traza correlate --anomalies-of --rank --json` does: the same
# order and the same r values, with the CLI's defaults and with other options.
. "$(dirname "$0")/../lib.sh"
need_feature serve "server probable causes"
root=$(cd "$(dirname "$0")/../.." && pwd)

awk -f "$root/examples/cause-injection/flush.awk" >"$TMP/flush.csv"
"$TRAZA" import "$TMP/flush.csv" --name flush -q >/dev/null

rm -f "$TMP/port"
"$TRAZA" serve --listen 127.0.0.1:0 --port-file "$TMP/port" >"$TMP/serve.out" 2>&1 &
PID=$!
for _ in $(seq 1 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
PORT=$(cat "$TMP/port" 2>/dev/null)

# compare NAME "CLI OPTIONS" "API QUERY": the CLI's ranking and the API's causes
compare() {
  # shellcheck disable=SC2086
  "$TRAZA" correlate flush --rank --json --replace $2 >"$TMP/cli.json" 2>"$TMP/cli.err"
  python3 - "$TMP/cli.json" "http://127.0.0.1:$PORT/api/correlate?trace=flush&top=500&budget=10000&$3" <<'PY' >"$TMP/cmp.out" 2>&1
import json, sys, urllib.request
cli = json.load(open(sys.argv[1]))["ranking"]
api = json.load(urllib.request.urlopen(sys.argv[2]))
got = [(c["type_name"], c["producer_name"], c["r"]) for c in api["causes"]]
want = [(c["type"], c["producer"], c["r"]) for c in cli]
print("cli:", want[:4]); print("api:", got[:4])
ok = got == want and api["total"] == len(want) and api["partial"] is False and len(want) > 1
print("first:", got[0][0] if got else None)
sys.exit(0 if ok else 1)
PY
  if [ $? -eq 0 ]; then pass "$1"; else fail "$1" "$(cat "$TMP/cmp.out" "$TMP/cli.err")"; fi
}

compare "probable causes of read@net's anomalies (CLI defaults): same order and r as the CLI" \
  "--anomalies-of read --producer net" "anomalies_of=read&producer=net"
compare "with --rule sigma: same order and r as the CLI" \
  "--anomalies-of read --producer net --rule sigma" "anomalies_of=read&producer=net&rule=sigma"
check_contains "with --rule sigma the injected cause ranks first" "$(cat "$TMP/cmp.out")" "first: flush"
compare "with --metric period --k 2 --method irregular: same order and r as the CLI" \
  "--anomalies-of irq --metric period --k 2 --method irregular" "anomalies_of=irq&metric=period&k=2&method=irregular"

# the answer names the anomaly series; no anomaly is a 422 with the reason
n=$("$TRAZA" anomaly flush --type read --producer net --rule sigma --json --save sigma-set | json_get anomalies | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
python3 - "http://127.0.0.1:$PORT/api/correlate?trace=flush&anomalies_of=read&producer=net&rule=sigma" <<'PY' >"$TMP/name.out" 2>&1
import json, sys, urllib.request
a = json.load(urllib.request.urlopen(sys.argv[1]))
print(a["series"], a["events"], a["method"])
PY
check_eq "the answer names the anomalies ranked, their number and the CLI's default method" \
  "anomalies:read@net:duration $n regular" "$(cat "$TMP/name.out")"
code=$(python3 -c "
import sys, urllib.request, urllib.error
try: urllib.request.urlopen(sys.argv[1]); print(200)
except urllib.error.HTTPError as e: print(e.code, e.read().decode())" \
  "http://127.0.0.1:$PORT/api/correlate?trace=flush&anomalies_of=timer&metric=period")
check_contains "no anomalies: 422 saying why" "$code" "422"
check_contains "no anomalies: the message names the series" "$code" "no anomalies of timer"

kill -TERM "$PID"; wait "$PID"
