#!/usr/bin/env bash
# The Tools tab in a real browser (web/test/uitools.mjs): a tool run from the UI is
# a stored result the CLI lists; "use as filter" and delete act on the workspace.
# A long run shows its progress and stops on Cancel; the selection and repeatable
# options reach the tool. Screenshots: $TRAZA_BUILD/web-test/{uitools,progress}-*.png.
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
need_browser "Tools tab browser test"

"$TRAZA" gen --name gen --events 20000 --params 2 -q >/dev/null
"$TRAZA" gen --name big --events 2M --types punctual=1,state=1 -q >/dev/null
# saved annotations whose one time range (the second quarter of the trace) the UI uses
# as a time filter ("use its time ranges"), and the events it must then show
read -r q1 q2 < <("$TRAZA" info gen --json | python3 -c 'import json,sys; d=json.load(sys.stdin); a,b=d["min_ts"],d["max_ts"]; print(a+(b-a)//4, a+(b-a)//2)')
"$TRAZA" aggregate gen --slices 1 --p 0 --from "$q1" --to "$q2" --save ui-parts -q >/dev/null
export DURING_COUNT=$("$TRAZA" query gen --during ui-parts --count)
real=() # a real trace (../shared/data) and one of its event types, when present
lttng=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ -d "$lttng" ] && "$TRAZA" import "$lttng" --name lttng -q >/dev/null 2>&1; then
  real=(lttng "$("$TRAZA" stats lttng --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["types"][0]["name"])')")
else
  skip "the Tools tab on the LTTng trace" "$lttng is absent or does not import"
fi
start_server
[ -n "$PORT" ] || { fail "serve starts" "$(cat "$TMP/serve.out")"; exit 0; }
shots=${TRAZA_BUILD:-$root/build}/web-test
mkdir -p "$shots"
rm -f "$shots"/uitools-*.png "$shots"/progress-*.png
(cd "$root/web" && timeout 180 node test/uitools.mjs "http://127.0.0.1:$PORT/" "$shots" gen big "${real[@]}") >"$TMP/browser.out" 2>&1
brc=$?
cat "$TMP/browser.out"
[ $brc -eq 0 ] || grep -q '^FAIL: ' "$TMP/browser.out" || fail "browser test exited $brc" "$(tail -20 "$TMP/browser.out")"
stop_server TERM
check_eq "serve stops cleanly after the browser test" 0 "$RC"

# what the UI did, as the CLI sees it
names=$("$TRAZA" results gen --json | python3 -c 'import json,sys; print(" ".join(sorted(r["name"] for r in json.load(sys.stdin))))')
check_eq "traza results lists the sets the UI saved, not the one it deleted" "ui-parts ui-sel ui-state0 ui-two" "$names"
check_eq "the repeatable option's set holds both types" \
  "$(( $("$TRAZA" query gen --type state0 --count) + $("$TRAZA" query gen --type state1 --count) ))" \
  "$("$TRAZA" results gen --json | python3 -c 'import json,sys; print([r["size"] for r in json.load(sys.stdin) if r["name"]=="ui-two"][0])')"
check_eq "the cancelled run on the large trace saved nothing" "" "$("$TRAZA" results big --json | python3 -c 'import json,sys; print(" ".join(r["name"] for r in json.load(sys.stdin)))')"
check_eq "the UI's set is the CLI's filter of state0" "$("$TRAZA" query gen --type state0 --count)" \
  "$("$TRAZA" results gen --json | python3 -c 'import json,sys; print([r["size"] for r in json.load(sys.stdin) if r["name"]=="ui-state0"][0])')"
check_contains "the set records the tool and its options" "$("$TRAZA" results gen show ui-state0 --json)" '"tool":"filter"'
if [ ${#real[@]} -gt 0 ]; then
  check_contains "traza results lists the set saved on the real trace" "$("$TRAZA" results lttng)" "ui-real"
fi
n=$(ls "$shots"/uitools-*.png 2>/dev/null | wc -l)
if [ "$n" -ge 4 ]; then pass "screenshots saved ($n in $shots)"; else fail "screenshots saved" "only $n in $shots"; fi
