#!/usr/bin/env bash
# traza diff --flame: the differential flame graph of two call-stack traces (those of
# t_diff_calls.sh: bar's own time 50 % longer in B, a new baz under foo, qux under main
# gone). The frame of main;foo;bar is exactly the element computed here from the CSV
# (its red from the relative change of its self time, its title the times of A and B,
# the change and the percentage), baz is purple and dashed (only in B), main;qux is
# listed under the graph (only in A); an A/A graph has every frame neutral grey.
. tests/lib.sh
. tests/cli/diff_calls.sh
import_calls a 1 1000 0
import_calls b 11 1500 1

check_rc "diff --flame" 0 "$TRAZA" diff a b --by function --flame "$TMP/ab.svg"
SVG=$(cat "$TMP/ab.svg" 2>/dev/null)

# expected FRAME_PATH METRIC: the <g> of a frame drawn in both runs, from the CSVs
expected() {
  python3 - "$TMP/a.csv" "$TMP/b.csv" "$1" "$2" <<'PY'
import csv, math, sys
def tree(path):
    rows = sorted(csv.DictReader(open(path)), key=lambda r: (r["thread"], int(r["t"]), int(r["lvl"])))
    tot, child, calls, stack = {}, {}, {}, {}
    for r in rows:  # a call's caller: the call open one level up on its thread
        th, lv, d = r["thread"], int(r["lvl"]), int(r["e"]) - int(r["t"])
        st = stack.setdefault(th, [])
        del st[lv:]
        p = ";".join(st + [r["kind"]])
        tot[p] = tot.get(p, 0) + d
        calls[p] = calls.get(p, 0) + 1
        if st:
            q = ";".join(st)
            child[q] = child.get(q, 0) + d
        st.append(r["kind"])
    return tot, child, calls
(ta, ca, na), (tb, cb, nb) = tree(sys.argv[1]), tree(sys.argv[2])
path, metric = sys.argv[3], sys.argv[4]
sec = lambda ticks: ticks * 1e-9
sa, sb = sec(ta[path] - ca.get(path, 0)), sec(tb[path] - cb.get(path, 0))
xa, xb = sec(ta[path]), sec(tb[path])
mx = max([sec(v) for v in ta.values()] + [sec(v) for v in tb.values()])
unit, sc = next((u, s) for u, s in (("s", 1), ("ms", 1e3), ("us", 1e6), ("ns", 1e9)) if mx * s >= 1 or u == "ns")
a, b = (sa, sb) if metric == "self" else (xa, xb)
k = min(1.0, abs((b - a) / a))
to = (224, 40, 40) if b > a else (40, 96, 224)
col = "#" + "".join("%02x" % int(math.floor(232 + (t - 232) * k + 0.5)) for t in to)
def side(what, a, b):
    return "\n%s: A %.9g %s, B %.9g %s, %+.9g %s (%+.1f%%)" % (what, a * sc, unit, b * sc, unit, (b - a) * sc, unit, (b - a) / a * 100)
root = sum(sec(v) for p, v in tb.items() if ";" not in p)
x = 0.0  # the callers' x plus the total of the earlier siblings (by name)
parts = path.split(";")
for i in range(1, len(parts) + 1):
    pre = ";".join(parts[:i - 1])
    for sib in sorted(p for p in tb if p.count(";") == i - 1 and p.rsplit(";", 1)[0] == pre and i > 1 or (i == 1 and ";" not in p)):
        if sib == ";".join(parts[:i]):
            break
        x += sec(tb[sib]) / root * 1200
depth = max(p.count(";") for p in tb) + 1  # the rows of the frames drawn (every path of B here)
y = 40 + (depth - 1 - path.count(";")) * 17
print('<g data-frame="%d"><title>%s%s%s\ncalls: A %d, B %d</title><rect x="%.2f" y="%.2f" width="%.2f" height="16" fill="%s" '
      'stroke="#ffffff" stroke-width="0.5"/><text x="%.2f" y="%.2f">%s</text></g>'
      % (sorted(set(ta) | set(tb)).index(path), path, side("self", sa, sb), side("total", xa, xb), na[path], nb[path],
         10 + x, y, xb / root * 1200, col, 13 + x, y + 12, parts[-1]))
PY
}
# the <g> element of a frame (its lines joined) whose title starts with PATH
frame() { printf '%s\n' "$SVG" | python3 -c '
import re, sys
for g in re.findall(r"<g data-frame=.*?</g>", sys.stdin.read(), re.S):
    if re.search(r"<title>" + re.escape(sys.argv[1]) + "\n", g):
        print(g)' "$1"; }

check_eq "bar: red by the change of its self time, its exact numbers" "$(expected 'main;foo;bar' self)" "$(frame 'main;foo;bar')"
check_eq "foo: near neutral in self time" "$(expected 'main;foo' self)" "$(frame 'main;foo')"
check_contains "baz: purple, dashed, only in B" "$(frame 'main;foo;baz')" $'only in B\nself: A none, B '
check_contains "baz: purple fill" "$(frame 'main;foo;baz')" 'fill="#b388eb" stroke="#ffffff" stroke-width="0.5" stroke-dasharray="3 2"'
check_contains "qux: listed as only in A" "$SVG" '>main;qux: 600 calls, total '
check_eq "qux: not drawn" "" "$(frame 'main;qux')"

check_rc "diff --flame --flame-by total" 0 "$TRAZA" diff a b --by function --flame "$TMP/total.svg" --flame-by total
SVG=$(cat "$TMP/total.svg" 2>/dev/null)
check_eq "foo by total time: red (its callee bar grew)" "$(expected 'main;foo' total)" "$(frame 'main;foo')"

check_rc "A/A --flame" 0 "$TRAZA" diff a a --flame "$TMP/aa.svg"
check_eq "A/A: every frame neutral" "e8e8e8" \
  "$(grep -o '<rect x="[0-9.]*" y="[0-9.]*" width="[0-9.]*" height="16" fill="#[0-9a-f]*"' "$TMP/aa.svg" | sed 's/.*#//; s/"//' | sort -u)"

check_rc "--flame-by bad" 2 "$TRAZA" diff a b --flame "$TMP/x.svg" --flame-by wall
check_contains "--flame-by bad: message" "$OUT" "--flame-by expects self or total, got 'wall'"
check_rc "--flame with run sets" 2 "$TRAZA" diff --base a a --new b b --flame "$TMP/x.svg"
check_contains "--flame with run sets: message" "$OUT" "--flame draws two traces, A B, not --base / --new sets"

# a thread first seen deep in its stack (a recording started mid-call, as uftrace's):
# its outermost call is a root, not a callee of the call another thread had open at
# the level above
printf 't,e,kind,thread,lvl\n0,100,main,t0,0\n10,90,foo,t0,1\n0,50,deep,t1,2\n10,20,deeper,t1,3\n60,80,next,t1,2\n' >"$TMP/mid.csv"
check_rc "import mid" 0 "$TRAZA" import "$TMP/mid.csv" --format csv --map ts=t,end=e,type=kind,producer=thread,level=lvl --name mid
check_rc "diff --flame, a thread starting deep" 0 "$TRAZA" diff mid mid --flame "$TMP/mid.svg"
check_eq "the call paths of a thread starting deep" "deep deep;deeper main main;foo next" \
  "$(grep -o '<title>[^&]*' "$TMP/mid.svg" | sed 's/<title>//' | grep -v ':' | sort | tr '\n' ' ' | sed 's/ $//')"

# traza report B --diff A: a section on what changed, first: the tables of traza diff
# by event type and by function, and the same flame graph
check_rc "report b --diff a" 0 "$TRAZA" report b --diff a -o "$TMP/r.html"
HTML=$(cat "$TMP/r.html" 2>/dev/null)
section() { printf '%s\n' "$HTML" | python3 -c '
import re, sys
h = sys.stdin.read()
m = re.search(r"<section data-testid=\"diff\">.*?</section>", h, re.S)
print(m.group(0) if m else "")'; }
check_contains "report: the diff section, B against A" "$(section)" '<h2>What changed: b against a</h2>'
check_eq "report: the diff section comes before the trace's" "1" \
  "$(printf '%s' "$HTML" | python3 -c 'import sys; h = sys.stdin.read(); print(int(0 <= h.find("data-testid=\"diff\"") < h.find("<h2>b</h2>")))')"
check_eq "report: the function rows' verdicts" "$(printf '%s\n' 'bar calls slower' 'bar self slower' 'baz calls new' 'foo calls slower' \
  'foo self same' 'main calls slower' 'main self same' 'main;foo;baz path new path' 'main;qux path gone path' 'qux calls gone')" \
  "$(section | python3 -c '
import re, sys
t = re.search(r"<table class=\"diff\" data-testid=\"diff-function\">.*?</table>", sys.stdin.read(), re.S).group(0)
for r in sorted(re.findall(r"<tr class=\"[^\"]*\"><td>([^<]*)</td><td>([^<]*)</td>.*?<td>([^<]*)</td></tr>", t)):
    print(*r)')"
SVG=$(section)
check_eq "report: the flame graph's bar frame" "$(expected 'main;foo;bar' self)" "$(frame 'main;foo;bar')"
check_rc "report without --diff" 0 "$TRAZA" report b -o "$TMP/r1.html"
check_eq "report without --diff: no diff section" "0" "$(grep -c 'data-testid="diff"' "$TMP/r1.html")"
check_rc "report --diff of a trace that is not there" 1 "$TRAZA" report b --diff nosuch -o "$TMP/r2.html"
check_contains "report --diff nosuch: message" "$OUT" "nosuch"
