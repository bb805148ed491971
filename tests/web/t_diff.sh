#!/usr/bin/env bash
# The Diff tab in a real browser (web/test/diff.mjs) and /api/diff. Two call-stack
# traces of 300 iterations per thread of main > foo, then bar (CSV states nested by a
# level); in B, bar lasts 3 us instead of 1 us in iterations 60 to 239 (the middle
# 60 % of the run), the only change. /api/diff answers the numbers of `traza diff a b --json --ranges`;
# the tab's first row is bar, slower, with the CLI's numbers; bar's flame frame is red;
# a click on bar's time range selects it in the timeline; and the tab works on the
# uftrace sample of ../shared/data against itself. Screenshots:
# $TRAZA_BUILD/web-test/diffweb-*.png.
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
gen() {
  python3 - "$@" <<'PY'
import itertools, random, sys
path, seed, slow = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
r = random.Random(seed)
j = lambda m: int(m * r.uniform(0.9, 1.1))
rows, end = [], {}
for th, i in itertools.product(("t0", "t1"), range(300)):
    bar = 3000 if slow and 60 <= i < 240 else 1000
    m0 = end.get(th, 0); f0 = m0 + j(100); f1 = f0 + j(1000); m1 = f1 + j(100); b0 = m1 + j(100); b1 = b0 + j(bar)
    rows += [(m0, m1, "main", th, 0), (f0, f1, "foo", th, 1), (b0, b1, "bar", th, 0)]
    end[th] = b1 + 500
open(path, "w").write("t,e,kind,thread,lvl\n" + "".join("%d,%d,%s,%s,%d\n" % x for x in sorted(rows, key=lambda x: (x[0], x[4]))))
PY
}
gen "$TMP/a.csv" 1 0
gen "$TMP/b.csv" 2 1
for x in a b; do
  check_rc "import $x" 0 "$TRAZA" import "$TMP/$x.csv" --format csv --map ts=t,end=e,type=kind,producer=thread,level=lvl --name "$x"
done
uf=$DATA/uftrace-redisgraph-aarch64
traces=a,b
if [ -d "$uf" ] && "$TRAZA" import "$uf" --name uftrace -q >/dev/null 2>&1; then traces=a,b,uftrace
else skip "the Diff tab on the uftrace sample" "$uf is absent or does not import"; fi

start_server
[ -n "$PORT" ] || fail "serve starts" "$(cat "$TMP/serve.out")"
# the endpoint: the CLI's JSON, field for field, plus the tree
for by in type function; do
  "$TRAZA" diff a b --by "$by" --json --ranges >"$TMP/cli-$by.json"
  curl -s "http://127.0.0.1:$PORT/api/diff?base=a&trace=b&by=$by" >"$TMP/api-$by.json"
  check_eq "/api/diff by $by: the rows and ranges of traza diff --json --ranges" same "$(python3 - "$TMP/cli-$by.json" "$TMP/api-$by.json" <<'PY'
import json, sys
c, a = (json.load(open(p)) for p in sys.argv[1:])
diff = [k for k in ("a", "b", "by", "alpha", "span_a", "span_b", "tests", "rows", "ranges") if c.get(k, []) != a.get(k)]
print("same" if not diff else "differ in " + ",".join(diff))
PY
)"
done
# bar's self time is 2.2 times longer in B (3 us in 60 % of its calls): its fill is
# saturated red; main's and foo's self times are unchanged (grey)
check_eq "/api/diff: the call tree bar, main > foo, bar red, the others grey" "bar red / main #e8e8e8 / foo #e8e8e8" \
  "$(python3 -c '
import json, sys
fr = json.load(open(sys.argv[1]))["tree"]["frames"]
red = lambda c: int(c[1:3], 16) > int(c[3:5], 16) + 40 and int(c[1:3], 16) > int(c[5:7], 16) + 40
print(" / ".join("%s %s" % (f[0], "red" if red(f[9]) else f[9]) for f in fr))' "$TMP/api-function.json")"
check_eq "/api/diff: an unknown base is a 404 naming it" 404 "$(curl -s -o "$TMP/e.json" -w '%{http_code}' "http://127.0.0.1:$PORT/api/diff?base=nope&trace=b")"
check_contains "/api/diff: the error names the trace" "$(cat "$TMP/e.json")" "nope"
check_eq "/api/diff: a bad by= is a 400" 400 "$(curl -s -o "$TMP/e.json" -w '%{http_code}' "http://127.0.0.1:$PORT/api/diff?base=a&trace=b&by=colour")"
check_contains "/api/diff: the error says what by= takes" "$(cat "$TMP/e.json")" "type, producer or function"

need_browser "Diff tab browser test"
shots=${TRAZA_BUILD:-$root/build}/web-test
mkdir -p "$shots"
rm -f "$shots"/diffweb-*.png
(cd "$root/web" && timeout 240 node test/diff.mjs "http://127.0.0.1:$PORT/" "$shots" "$TRAZA" "$traces") >"$TMP/diff.out" 2>&1
brc=$?
cat "$TMP/diff.out"
[ $brc -eq 0 ] || grep -q '^FAIL: ' "$TMP/diff.out" || fail "diff browser test exited $brc" "$(tail -20 "$TMP/diff.out")"
stop_server TERM
check_eq "serve stops cleanly after the Diff test" 0 "$RC"
