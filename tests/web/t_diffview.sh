#!/usr/bin/env bash
# The Diff tab's structure panel and side-by-side timeline in a real browser
# (web/test/diffview.mjs), and /api/diff?structure=1. The call-stack traces of
# tests/cli/diff_calls.sh: the base a runs an init state of 100 us before its loop of
# main > foo > bar, then qux under main; the open b has no init and no qux, and a baz
# under foo. The structure lists init and main;qux as only in the base, main;foo;baz as
# only in b; both timelines are drawn; "align at main" moves the base by its 100 us.
# Then two traza gen traces, and the uftrace sample and the LTTng kernel trace of
# ../shared/data each against itself.
# Screenshots: $TRAZA_BUILD/web-test/diffview-*.png.
. "$(dirname "$0")/../lib.sh"
. "$TRAZA_SRC/tests/cli/diff_calls.sh"
gen_calls "$TMP/a0.csv" 1 1000 0
python3 - "$TMP/a0.csv" "$TMP/a.csv" <<'PY'
import sys
rows = open(sys.argv[1]).read().splitlines()
out = [rows[0], "0,100000,init,t0,0"]
for r in rows[1:]:
    t, e, rest = r.split(",", 2)
    out.append("%d,%d,%s" % (int(t) + 100000, int(e) + 100000, rest))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
check_rc "import a" 0 "$TRAZA" import "$TMP/a.csv" --format csv --map ts=t,end=e,type=kind,producer=thread,level=lvl --name a
import_calls b 11 1500 1
check_rc "gen g1" 0 "$TRAZA" gen --name g1 --events 20000 --seed 1 --tree 3x4
check_rc "gen g2" 0 "$TRAZA" gen --name g2 --events 20000 --seed 2 --tree 3x4 --gap 130
check_rc "gen g3 (a second run of g1's side)" 0 "$TRAZA" gen --name g3 --events 20000 --seed 3 --tree 3x4
check_rc "gen g4 (a second run of g2's side)" 0 "$TRAZA" gen --name g4 --events 20000 --seed 4 --tree 3x4 --gap 130
traces=a,b,g1+g2
uf=$DATA/uftrace-redisgraph-aarch64
if [ -d "$uf" ] && "$TRAZA" import "$uf" --name uftrace -q >/dev/null 2>&1; then traces=$traces,uftrace
else skip "the side-by-side timeline on the uftrace sample" "$uf is absent or does not import"; fi
lt=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ -d "$lt" ] && "$TRAZA" import "$lt" --name lttng -q >/dev/null 2>&1; then traces=$traces,lttng.processed
else skip "the side-by-side timeline on the LTTng kernel trace" "$lt is absent or does not import"; fi

start_server
[ -n "$PORT" ] || fail "serve starts" "$(cat "$TMP/serve.out")"
api() { curl -s "http://127.0.0.1:$PORT/api/$1"; }
# the paths: those of traza diff --by function (its rows of kind path), in its order
check_eq "/api/diff?structure=1: the call paths of one run only, as traza diff's path rows" \
  "$("$TRAZA" diff a b --by function --json | python3 -c '
import json, sys
for r in json.load(sys.stdin)["rows"]:
    if r["kind"] == "path": print(r["name"], "base" if r["a"]["count"] else "new", r["a"]["count"] or r["b"]["count"])')" \
  "$(api 'diff?base=a&trace=b&structure=1' | python3 -c '
import json, sys
for p in json.load(sys.stdin)["structure"]["paths"]: print(p["path"], p["side"], p["calls"])')"
check_eq "/api/diff?structure=1: init and main;qux in the base only, main;foo;baz in b only" "init base 1|main;foo;baz new 600|main;qux base 600" \
  "$(api 'diff?base=a&trace=b&by=type&structure=1' | python3 -c '
import json, sys
print("|".join(sorted("%s %s %d" % (p["path"], p["side"], p["calls"]) for p in json.load(sys.stdin)["structure"]["paths"])))')"
check_eq "/api/diff?structure=1: the patterns of traza diff --patterns" \
  "$("$TRAZA" diff a b --patterns --json | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["patterns"]))')" \
  "$(api 'diff?base=a&trace=b&structure=1' | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["structure"]["patterns"]))')"
check_eq "/api/diff without structure=1: no structure" "absent" \
  "$(api 'diff?base=a&trace=b' | python3 -c 'import json, sys; print("absent" if "structure" not in json.load(sys.stdin) else "present")')"
# several runs per side: base= repeated, new= beside the open trace; the rows of traza diff --base --new
rows() { python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["rows"], sort_keys=True))'; }
check_eq "/api/diff with two runs per side: the rows of traza diff --base g1 g3 --new g2 g4" \
  "$("$TRAZA" diff --base g1 g3 --new g2 g4 --json | rows)" "$(api 'diff?base=g1&base=g3&trace=g2&new=g4&tree=0' | rows)"
check_eq "... which are not those of one run per side" "different" \
  "$([ "$(api 'diff?base=g1&trace=g2&tree=0' | rows)" != "$(api 'diff?base=g1&base=g3&trace=g2&new=g4&tree=0' | rows)" ] && echo different)"
check_eq "/api/diff: more than 8 runs a side is a 400" 400 \
  "$(curl -s -o "$TMP/e.json" -w '%{http_code}' "http://127.0.0.1:$PORT/api/diff?trace=g2$(printf '&base=g1%.0s' 1 2 3 4 5 6 7 8 9)")"
check_contains "... saying so" "$(cat "$TMP/e.json")" "at most 8 runs per side (parameter 'base')"
check_eq "/api/diff: an unknown run is a 404" 404 "$(curl -s -o "$TMP/e.json" -w '%{http_code}' "http://127.0.0.1:$PORT/api/diff?trace=g2&base=g1&new=nosuch")"
"$TRAZA" diff --base g1 g3 --new g2 g4 --json | python3 -c 'import json, sys; print(" ".join(r["name"] for r in json.load(sys.stdin)["rows"]))' >"$TMP/runs-rows"
export DIFF_RUNS_ROWS=$(cat "$TMP/runs-rows")
check_eq "/api/diff: a bad structure= is a 400" 400 "$(curl -s -o "$TMP/e.json" -w '%{http_code}' "http://127.0.0.1:$PORT/api/diff?base=a&trace=b&structure=2")"
stop_server TERM

need_browser "Diff tab side-by-side browser test"
browser_run diffview diffview.mjs "$traces"
