#!/usr/bin/env bash
# traza diff --ranges: where in time a change shows. Two traces of 2000 "work" states
# every 10 us lasting 1 us +-10 %; in B, the 400 starting from 8 ms to 12 ms (slices 8
# to 11 of 20) last 2 us. The row is slower and its one range is slices 8-11 of B's
# span, slower, with those 400 events and a median near 2 us; "idle", unchanged, has
# no row in the ranges (its verdict is same).
. tests/lib.sh
gen() {
  python3 - "$@" <<'PY'
import random, sys
path, seed, slow = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
r = random.Random(seed)
with open(path, "w") as f:
    f.write("ts,end,type,producer\n")
    for i in range(2000):
        t = i * 10000
        d = (2000 if slow and 800 <= i < 1200 else 1000) * r.uniform(0.9, 1.1)
        f.write("%d,%d,work,cpu0\n" % (t, t + int(d)))
        f.write("%d,%d,idle,cpu1\n" % (t + 5000, t + 5000 + int(500 * r.uniform(0.9, 1.1))))
PY
}
gen "$TMP/a.csv" 1 0
gen "$TMP/b.csv" 2 1
for x in a b; do check_rc "import $x" 0 "$TRAZA" import "$TMP/$x.csv" --name "$x"; done

check_rc "diff --ranges --json" 0 "$TRAZA" diff a b --ranges --json
check_eq "ranges: work's one range, slices 8 to 11 of B, slower, its 400 events" \
  "work 1 slower 400 0.4 0.6 1" "$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for w in d["ranges"]:
    g = w["ranges"]
    for x in g:
        print(w["row"], len(g), x["direction"], x["events"], round(x["from"] / d["span_b"], 9), round(x["to"] / d["span_b"], 9),
              int(1.8e-6 < x["median"] < 2.2e-6))')"
check_rc "diff --ranges (text)" 0 "$TRAZA" diff a b --ranges
check_contains "ranges: text" "$OUT" "where in time (B's slices of 1/20 of its span whose median is outside A's interval, median +- 3 MAD):"
check_contains "ranges: text line of work" "$OUT" "slower (400 events, median"
check_rc "diff --ranges on an A/A pair" 0 "$TRAZA" diff a a --ranges --json
check_eq "A/A: no row to place" "[]" "$(printf '%s' "$OUT" | json_get ranges)"
check_rc "diff --ranges --by producer" 0 "$TRAZA" diff a b --ranges --by producer --json
check_eq "by producer: the row of work on cpu0, the same range" "work @ cpu0 events 1 slower 400 0.4 0.6" "$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for w in d["ranges"]:
    for x in w["ranges"]:
        print(w["row"], w["kind"], len(w["ranges"]), x["direction"], x["events"], round(x["from"] / d["span_b"], 9), round(x["to"] / d["span_b"], 9))')"

# Calls: main(level 0) > foo(1) > bar(2) on one thread, 2000 times every 10 us; in B,
# bar lasts 3 us instead of 1 from 8 ms to 12 ms. bar's calls and self time, and
# the calls of foo and main (which hold bar's) are slower there; their self times
# are not.
python3 - "$TMP" <<'PY'
import random, sys
for name, seed, slow in (("fa", 3, 0), ("fb", 4, 1)):
    r = random.Random(seed)
    with open("%s/%s.csv" % (sys.argv[1], name), "w") as f:
        f.write("ts,end,type,producer,level\n")
        for i in range(2000):
            t = i * 10000
            j = lambda m: int(m * r.uniform(0.9, 1.1))
            bar = j(3000 if slow and 800 <= i < 1200 else 1000)
            f0, b0 = t + j(500), t + 500 + j(500)
            b1 = b0 + bar
            f1 = b1 + j(500)
            f.write("%d,%d,main,th,0\n%d,%d,foo,th,1\n%d,%d,bar,th,2\n" % (t, f1 + j(500), f0, f1, b0, b1))
PY
for x in fa fb; do check_rc "import $x" 0 "$TRAZA" import "$TMP/$x.csv" --name "$x"; done
check_rc "diff --ranges --by function" 0 "$TRAZA" diff fa fb --ranges --by function --json
check_eq "by function: bar's calls and self, and the calls of foo and main, slower from 0.4 to 0.6 of B" \
  "bar calls 1 slower 400 0.4 0.6
bar self 1 slower 400 0.4 0.6
foo calls 1 slower 400 0.4 0.6
main calls 1 slower 400 0.4 0.6" "$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for w in sorted(d["ranges"], key=lambda w: (w["row"], w["kind"])):
    for x in w["ranges"]:
        print(w["row"], w["kind"], len(w["ranges"]), x["direction"], x["events"], round(x["from"] / d["span_b"], 1), round(x["to"] / d["span_b"], 1))')"
check_rc "diff --ranges --by function (text)" 0 "$TRAZA" diff fa fb --ranges --by function
check_contains "by function: text names the self row" "$OUT" "  bar (self) (A's interval"

# A base whose durations spread widely (uniform 100 ns to 5 us): median - 3 MAD is
# below zero, and the interval starts at 0 (a duration is never negative).
python3 - "$TMP" <<'PY'
import random, sys
r = random.Random(5)
for name, k in (("c", 1), ("d", 3)):
    with open("%s/%s.csv" % (sys.argv[1], name), "w") as f:
        f.write("ts,end,type,producer\n")
        for i in range(2000):
            t = i * 10000
            f.write("%d,%d,work,cpu0\n" % (t, t + int(r.uniform(100, 5000) * (k if 800 <= i < 1200 else 1))))
PY
for x in c d; do check_rc "import $x" 0 "$TRAZA" import "$TMP/$x.csv" --name "$x"; done
check_rc "diff --ranges on a wide base" 0 "$TRAZA" diff c d --ranges --json
check_eq "wide base: the interval starts at 0" "work 0" "$(printf '%s' "$OUT" | python3 -c '
import json, sys
for w in json.load(sys.stdin)["ranges"]:
    print(w["row"], w["lo"])')"

# Sets of runs: three base runs pooled into one interval, and each new run placed on
# its own: runs 1 and 2 slower from 8 ms to 16 ms, run 3 from 4 ms to 12 ms.
python3 - "$TMP" <<'PY'
import random, sys
for name, seed, lo, hi in (("a1", 1, 0, 0), ("a2", 2, 0, 0), ("a3", 3, 0, 0), ("b1", 4, 800, 1600), ("b2", 5, 800, 1600), ("b3", 6, 400, 1200)):
    r = random.Random(seed)
    with open("%s/%s.csv" % (sys.argv[1], name), "w") as f:
        f.write("ts,end,type,producer\n")
        for i in range(2000):
            t = i * 10000
            f.write("%d,%d,work,cpu0\n" % (t, t + int((2000 if lo <= i < hi else 1000) * r.uniform(0.9, 1.1))))
PY
for x in a1 a2 a3 b1 b2 b3; do check_rc "import $x" 0 "$TRAZA" import "$TMP/$x.csv" --name "$x"; done
check_rc "diff --ranges of sets" 0 "$TRAZA" diff --base a1 a2 a3 --new b1 b2 b3 --ranges --json
check_eq "sets: each new run's range, against the pooled base" "work 0 slower 800 0.4 0.8
work 1 slower 800 0.4 0.8
work 2 slower 800 0.2 0.6" "$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for w in d["ranges"]:
    for x in w["ranges"]:
        print(w["row"], w["run"], x["direction"], x["events"], round(x["from"] / 0.01999, 1), round(x["to"] / 0.01999, 1))')"
check_rc "diff --ranges of sets (text)" 0 "$TRAZA" diff --base a1 a2 a3 --new b1 b2 b3 --ranges
check_contains "sets: text names the run" "$OUT" "  work in B's run 3 (A's interval"
check_contains "sets: text says the base is pooled" "$OUT" "median +- 3 MAD, A's runs pooled):"
