#!/usr/bin/env bash
# traza serve: the CLI (usage errors, clean stop) and the web UI in a real browser
# (Playwright driving Debian's chromium headless). Screenshots: $TRAZA_BUILD/web-test/.
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

check_rc "serve --help" 0 "$TRAZA" serve --help
check_contains "serve --help names --listen" "$OUT" "--listen HOST:PORT"
check_rc "serve: bad --listen is a usage error" 2 "$TRAZA" serve --listen nonsense
check_rc "serve: port out of range" 2 "$TRAZA" serve --listen 127.0.0.1:70000
check_rc "serve: extra argument" 2 "$TRAZA" serve extra
check_rc "serve: unreadable grammar" 2 "$TRAZA" serve --grammar "$TMP/none.tzg"

"$TRAZA" gen --name gen --events 20000 --params 2 -q >/dev/null
"$TRAZA" import "$root/examples/demo.paje" -q >/dev/null
"$TRAZA" import "$root/examples/demo.kptrace" --name demo-kp -q >/dev/null
check_eq "test workspace has 3 traces" 3 "$("$TRAZA" list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"

# what the UI must show: the CLI's probable causes of state0's anomalies (the anomaly
# tab's first series, with the CLI's defaults) ...
"$TRAZA" correlate gen --anomalies-of state0 --rule ci99 --rank --json >"$TMP/causes.json"
export TRAZA_CAUSES="$TMP/causes.json"
# ... and exact epoch-nanosecond ticks (beyond 2^53: a double rounds them to 256 ns)
python3 -c "
b = 1571261796553123457
print('ts,end,type,producer')
for i in range(300):
    t = b + i * 1000003
    print(f'{t},{t + 500001 if i % 3 == 0 else \"\"},{\"run\" if i % 3 == 0 else \"tick\"},cpu{i % 4}')" >"$TMP/epoch.csv"
"$TRAZA" import "$TMP/epoch.csv" --name epoch -q >/dev/null
export TRAZA_EPOCH_TS=$("$TRAZA" query epoch --json --limit 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["ts"])')
check_eq "the epoch trace's first tick is stored exactly" 1571261796553123457 "$TRAZA_EPOCH_TS"
# a real LTTng kernel trace (../shared/data), when present
lttng=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ -d "$lttng" ] && "$TRAZA" import "$lttng" --name lttng -q >/dev/null 2>&1; then
  export TRAZA_LTTNG_TS=$("$TRAZA" query lttng --json --limit 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["ts"])')
  export TRAZA_LTTNG_EVENTS=$("$TRAZA" info lttng --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
else
  skip "the LTTng trace in the browser" "$lttng is absent or does not import"
fi


# A clean stop on SIGINT.
start_server
if [ -n "$PORT" ]; then pass "serve binds an ephemeral port ($PORT)"; else fail "serve binds an ephemeral port" "$(cat "$TMP/serve.out")"; fi
check_contains "serve prints the URL" "$(cat "$TMP/serve.out")" "http://127.0.0.1:$PORT/"
stop_server INT
check_eq "serve stops cleanly on SIGINT" 0 "$RC"
check_contains "serve says it stopped" "$(cat "$TMP/serve.out")" "stopped (SIGINT)"

# The browser test.
need_browser "browser test"
# a Cyclitur grammar with two distinct cycles for the grammar views
python3 -c "
import random
r = random.Random(3)
out = []
for i in range(400):
    out.append('0x1000')
    out += ['0x1004', '0x1008', '0x100c'] if r.random() < 0.7 else ['0x1004', '0x2000', '0x2004', '0x100c']
print('\n'.join(out))" >"$TMP/pcs.txt"
"$TRAZA" grammar compress "$TMP/pcs.txt" -o "$TMP/loop.tzg" --algo cyclitur --loop-header 0x1000 >/dev/null 2>&1
start_server --grammar "$TMP/loop.tzg"
shots=${TRAZA_BUILD:-$root/build}/web-test
mkdir -p "$shots"; rm -f "$shots"/[0-9]*-*.png # its own screenshots only
(cd "$root/web" && timeout 120 node test/browser.mjs "http://127.0.0.1:$PORT/" "$shots" gen grammar) >"$TMP/browser.out" 2>&1
brc=$?
cat "$TMP/browser.out"
[ $brc -eq 0 ] || grep -q '^FAIL: ' "$TMP/browser.out" || fail "browser test exited $brc" "$(tail -20 "$TMP/browser.out")"
stop_server TERM
check_eq "serve stops cleanly on SIGTERM after the browser test" 0 "$RC"
n=$(ls "$shots"/*.png 2>/dev/null | wc -l)
if [ "$n" -ge 6 ]; then pass "screenshots saved ($n in $shots)"; else fail "screenshots saved" "only $n in $shots"; fi
