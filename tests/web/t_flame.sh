#!/usr/bin/env bash
# The call-stack tab in a real browser (web/test/flame.mjs) on a generated call-stack
# trace always and on the uftrace sample of ../shared/data when present, with the
# numbers of `traza callstack`; and /api/callstack within its budget on 2 M events.
# Screenshots: $TRAZA_BUILD/web-test/flame-*.png.
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

python3 "$root/tests/web/callstack_csv.py" 3000 10 >"$TMP/cs.csv"
"$TRAZA" import "$TMP/cs.csv" --name cs -q >/dev/null
# traza callstack --from/--to: each call counted for its part in the range. Over
# [1000, 1100] (ticks) the CSV has three main_loop roots, [1000, 13611], [1037, 16225]
# and [1074, 16072], the second calling eval_query [1043, 2428] > sort_keys [1049, 1151]
# > alloc_node [1052, 1081] (> compress_block [1057, 1067]) and alloc_node [1085, 1099]:
# main_loop total 100 + 63 + 26 = 189, self 189 - 57 = 132; eval_query 57, self 57 - 51;
# sort_keys 51, self 51 - (29 + 14); alloc_node 29 + 14 = 43, self 43 - 10.
check_eq "callstack of the whole trace: main_loop's calls, total, self" "38 395911 189034" \
  "$("$TRAZA" callstack cs --json | python3 -c 'import json,sys; f=[x for x in json.load(sys.stdin)["profile"] if x["name"]=="main_loop"][0]; print(f["calls"], f["inclusive"], f["exclusive"])')"
check_eq "callstack --from 1000 --to 1100: each call's part in the range" \
  "main_loop 3 189 132 / alloc_node 2 43 33 / compress_block 1 10 10 / sort_keys 1 51 8 / eval_query 1 57 6" \
  "$("$TRAZA" callstack cs --from 1000 --to 1100 --json | python3 -c 'import json,sys; print(" / ".join(" ".join(str(f[k]) for k in ("name","calls","inclusive","exclusive")) for f in json.load(sys.stdin)["profile"]))')"
check_rc "callstack --from: a bad time is an error" 2 "$TRAZA" callstack cs --from nonsense
check_contains "callstack --from: the error names the value" "$OUT" "time value 'nonsense'"

# 2 M calls for the budget; and 2 M events of which few are calls, where one step of
# the store passes over many events before it finds a call
python3 "$root/tests/web/callstack_csv.py" 2000000 8 >"$TMP/big.csv"
"$TRAZA" import "$TMP/big.csv" --name big -q >/dev/null
"$TRAZA" gen --name sparse --events 2M --types punctual=20,state=1 -q >/dev/null
traces=cs
uf=$DATA/uftrace-redisgraph-aarch64
if [ -d "$uf" ] && "$TRAZA" import "$uf" --name uftrace -q >/dev/null 2>&1; then
  traces=cs,uftrace
else
  skip "the call-stack tab on the uftrace sample" "$uf is absent or does not import"
fi

start_server
[ -n "$PORT" ] || fail "serve starts" "$(cat "$TMP/serve.out")"
for t in big sparse; do
  secs=$(curl -s -o "$TMP/$t.json" -w '%{time_total}' "http://127.0.0.1:$PORT/api/callstack?trace=$t&budget=500&max=2000")
  if python3 -c "import sys; sys.exit(0 if float('$secs') < 0.65 else 1)"; then pass "/api/callstack on $t (2 M events) with budget=500 answers in ${secs} s"
  else fail "/api/callstack on $t (2 M events) with budget=500 answers within 0.65 s" "took $secs s"; fi
done
# reading 2 M calls takes seconds here: the first half of the budget reads a part
check_eq "/api/callstack on big says it is partial" True "$(json_get partial <"$TMP/big.json")"
cov=$(json_get covered_to <"$TMP/big.json")
max=$("$TRAZA" info big --json | json_get max_ts)
if [ -n "$cov" ] && [ "$cov" -gt 0 ] && [ "$cov" -lt "$max" ]; then pass "/api/callstack on big says how far it got (covered_to $cov < $max)"
else fail "/api/callstack on big says how far it got" "covered_to '$cov', max_ts $max"; fi

need_browser "call-stack browser test"
shots=${TRAZA_BUILD:-$root/build}/web-test
mkdir -p "$shots"
rm -f "$shots"/flame-*.png
(cd "$root/web" && timeout 240 node test/flame.mjs "http://127.0.0.1:$PORT/" "$shots" "$TRAZA" "$traces" big) >"$TMP/flame.out" 2>&1
brc=$?
cat "$TMP/flame.out"
[ $brc -eq 0 ] || grep -q '^FAIL: ' "$TMP/flame.out" || fail "flame browser test exited $brc" "$(tail -20 "$TMP/flame.out")"
stop_server TERM
check_eq "serve stops cleanly after the call-stack test" 0 "$RC"
