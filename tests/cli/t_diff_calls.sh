#!/usr/bin/env bash
# traza diff --by function on two call-stack traces (CSV states nested per thread by a
# level column): in B, bar's own time grows 50 % while main and foo keep theirs, and
# foo calls a new function baz; qux, called by main in A, is gone. The function rows
# say bar is slower in total and in self time, foo and main slower in total only
# (their children's time) and the same in self time; baz is new and qux gone (calls rows
# only: no self row for a function on one side); main;foo;baz is a "new path" row,
# main;qux a "gone path" row; several runs per side with --base / --new.
. tests/lib.sh
. tests/cli/diff_calls.sh
for k in 1 2 3; do
  import_calls "a$k" "$k" 1000 0
  import_calls "b$k" "$((k + 10))" 1500 1
done

# one row per line: kind name verdict, sorted
rows() { python3 -c '
import json, sys
for r in sorted(json.load(sys.stdin)["rows"], key=lambda r: (r["kind"], r["name"])):
    print(r["kind"], r["name"], r["verdict"], r["a"]["count"], r["b"]["count"])'; }

# expected N: the rows when each function is called N times a side
expected() {
  sed "s/N/$1/g" <<'ROWS'
calls bar slower N N
calls baz new 0 N
calls foo slower N N
calls main slower N N
calls qux gone N 0
path main;foo;baz new path 0 N
path main;qux gone path N 0
self bar slower N N
self foo same N N
self main same N N
ROWS
}

check_rc "diff --by function, one run a side" 0 "$TRAZA" diff a1 b1 --by function --json
check_eq "the function and path rows" "$(expected 600)" "$(printf '%s' "$OUT" | rows)"
check_eq "json: a self row has a duration test and no count test" "mann-whitney none" \
  "$(printf '%s' "$OUT" | python3 -c '
import json,sys; r = [r for r in json.load(sys.stdin)["rows"] if r["kind"] == "self" and r["name"] == "bar"][0]; print(r["test"], r["rate_test"])')"
check_eq "json: bar's self time grows by about 500 ns" "True" "$(printf '%s' "$OUT" | python3 -c '
import json,sys; r = [r for r in json.load(sys.stdin)["rows"] if r["kind"] == "self" and r["name"] == "bar"][0]
print(450e-9 < r["shift"] < 550e-9 and r["shift_lo"] < r["shift"] < r["shift_hi"] and r["p_adj"] < 1e-6)')"

check_rc "the text table" 0 "$TRAZA" diff a1 b1 --by function --top 30
check_contains "names the self row" "$OUT" "bar (self)"
check_contains "a new path row" "$(printf '%s\n' "$OUT" | grep '^main;foo;baz ')" "new path"
check_contains "a gone path row" "$(printf '%s\n' "$OUT" | grep '^main;qux ')" "gone path"
check_eq "ranked by adjusted p: the changed rows before the same ones" "same same" \
  "$(printf '%s\n' "$OUT" | sed -n '4,$p' | grep -oE '(slower|same|new path|gone path|new|gone)$' | tail -2 | tr '\n' ' ' | sed 's/ $//')"

check_rc "several runs per side" 0 "$TRAZA" diff --by function --base a1 a2 a3 --new b1 b2 b3 --json
check_eq "the same rows with three runs a side" "$(expected 1800)" "$(printf '%s' "$OUT" | rows)"
check_eq "json: the runs, the tests of the runs" '["a1","a2","a3"] 3 welch-run-medians welch-run-rates' \
  "$(printf '%s' "$OUT" | python3 -c '
import json,sys; d = json.load(sys.stdin); r = [r for r in d["rows"] if r["kind"] == "calls" and r["name"] == "bar"][0]
print(json.dumps(d["a"], separators=(",", ":")), r["a"]["runs"], r["test"], r["rate_test"])')"
check_rc "--fail-on names the self row" 3 "$TRAZA" diff --by function --base a1 a2 a3 --new b1 b2 b3 --fail-on 'shift > 20% and p_holm < 0.01'
check_contains "the failed rows: the callers' total times hold bar's, not their self times" "$OUT" "4 rows failed: foo, bar, main, bar (self)"
check_rc "--base with one trace" 2 "$TRAZA" diff --base a1 --new b1 b2
check_contains "says two or more" "$OUT" "--base and --new want two or more traces each and no other trace name"
check_rc "A B and --base together" 2 "$TRAZA" diff a1 b1 --base a2 a3 --new b2 b3
