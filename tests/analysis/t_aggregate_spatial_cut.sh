#!/usr/bin/env bash
# aggregate --spatial on a producer tree too large to search over its slices (4,800
# leaves x 100 slices): the tree is cut at the deepest level that fits, the leaves
# counted in their ancestor there, and the user is told so; the parts still tile
# every (producer, slice) cell once, with no negative gain or loss; a tree that fits
# is searched whole, with no warning.
. "$(dirname "$0")/../lib.sh"
"$TRAZA" gen --events 50k --tree 10x20x24 --seed 1 --name big >/dev/null || { fail "gen big"; exit 0; }
J=$("$TRAZA" aggregate big --spatial --slices 100 --p 0.001 --json --save cut 2>"$TMP/err")
check_eq "a spatial aggregation of 5,010 producers over 100 slices" 0 "$?"
ERR=$(cat "$TMP/err")
check_contains "the user is told where the tree is cut" "$ERR" "warning: the producer tree is too large to search over 100 slices: producers deeper than level 1 count in their ancestor at that level (211 nodes searched; roots are level 0)"
check_eq "depth_limit in the JSON" 1 "$(json_get depth_limit <<<"$J")"
check_eq "the warning in the JSON" 1 "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["warnings"]))' <<<"$J")"
# every kept node's 100 slices covered exactly once by the parts of it or its
# ancestors; a level-1 node holds its whole subtree (own: false)
printf '%s' "$J" >"$TMP/cut.json"
check_eq "the parts tile the cut tree's cells" ok "$(python3 - "$TMP/cut.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
parts = d["parts"]
cover = {}
for p in parts:
    for k in range(p["first"], p["last"] + 1):
        cover.setdefault((p["producer"], k), 0)
        cover[(p["producer"], k)] += 1
nodes = {f"g0_{a}/g1_{a * 20 + b}" for a in range(10) for b in range(20)}
bad = []
for n in nodes:
    for k in range(100):
        anc = [n, n.split("/")[0], "*"]
        c = sum(cover.get((a, k), 0) for a in anc)
        if c != 1: bad.append((n, k, c))
deep = [p["producer"] for p in parts if p["producer"].count("/") > 1]
neg = [p for p in parts if p["gain"] < 0 or p["loss"] < 0]
own = [p for p in parts if p["producer"].count("/") == 1 and p["own"]]
sg, sl = sum(p["gain"] for p in parts), sum(p["loss"] for p in parts)
ok = not bad and not deep and not neg and not own and abs(sg - d["gain"]) < 1e-6 * max(1, sg) and abs(sl - d["loss"]) < 1e-6 * max(1, sl)
print("ok" if ok else (bad[:3], deep[:3], neg[:3], own[:3], sg, d["gain"], sl, d["loss"]))
PY
)"
OUT=$("$TRAZA" aggregate big --spatial --slices 10 --p 0.001 --json --save whole 2>"$TMP/err")
check_eq "the same tree over 10 slices" 0 "$?"
ERR=$(cat "$TMP/err")
check_eq "searched whole: no depth limit" no "$(python3 -c 'import json,sys; print("depth_limit" in json.load(sys.stdin) and "yes" or "no")' <<<"$OUT")"
check_eq "searched whole: leaves in the parts" yes "$(python3 -c 'import json,sys; print("yes" if any(p["producer"].count("/") == 2 for p in json.load(sys.stdin)["parts"]) else "no")' <<<"$OUT")"
check_eq "searched whole: no warning" "" "$(grep warning <<<"$ERR")"
