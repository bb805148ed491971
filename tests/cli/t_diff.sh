#!/usr/bin/env bash
# traza diff on two CSV traces where one state type ("work") lasts 20 % longer in B:
# that row is found and ranked first, --fail-on exits 3 naming it and no other row,
# --json carries every row with every field; usage errors of --fail-on name the offset.
. tests/lib.sh
# gen_csv FILE SEED FACTOR: 4000 events on two cores, states work/idle (uniform
# 500..1500 ns, work's times FACTOR), punctual tick
gen_csv() {
  python3 - "$1" "$2" "$3" <<'PY'
import random, sys
path, seed, factor = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
r = random.Random(seed)
with open(path, "w") as f:
    f.write("t,e,kind,core\n")
    for i in range(4000):
        ts = i * 2000
        kind = r.choice(["work", "idle", "tick"])
        d = r.uniform(500, 1500) * (factor if kind == "work" else 1)
        end = "" if kind == "tick" else str(ts + int(d))
        f.write(f"{ts},{end},{kind},core{r.randint(0, 1)}\n")
PY
}
gen_csv "$TMP/a.csv" 1 1.0
gen_csv "$TMP/b.csv" 2 1.2
gen_csv "$TMP/c.csv" 3 1.0
for x in a b c; do
  check_rc "import $x" 0 "$TRAZA" import "$TMP/$x.csv" --format csv --map ts=t,end=e,type=kind,producer=core --name "$x"
done

check_rc "diff a b" 0 "$TRAZA" diff a b
first=$(printf '%s\n' "$OUT" | sed -n 4p)
check_contains "the injected change is ranked first" "$first" "work "
check_contains "its verdict is slower" "$first" "slower"
check_contains "its relative shift is about +20 %" "$(printf '%s\n' "$OUT" | sed -n 4p | grep -oE '\+(1[5-9]|2[0-5])\.[0-9]%')" "%"
check_eq "the other rows are the same" "2" "$(printf '%s\n' "$OUT" | sed -n '5,$p' | grep -c ' same$')"

check_rc "--fail-on exits 3 when a row matches" 3 "$TRAZA" diff a b --fail-on 'shift > 5% and p < 0.01'
check_contains "the report names the failed row" "$OUT" "--fail-on 'shift > 5% and p < 0.01': 1 row failed: work"
check_contains "the table marks it" "$(printf '%s\n' "$OUT" | sed -n 4p)" "FAIL"
check_rc "no row of an A/A pair matches" 0 "$TRAZA" diff a c --fail-on 'shift > 5% and p < 0.01'
check_contains "the report says so" "$OUT" "0 rows failed"
check_rc "abs_shift takes a time" 3 "$TRAZA" diff a b --fail-on 'abs_shift >= 100ns and q < 0.01 or count_ratio > 10'
check_rc "or: either group" 3 "$TRAZA" diff a b --fail-on 'count_ratio > 10 or shift>5%'
check_rc "nothing faster" 0 "$TRAZA" diff a b --fail-on 'shift < -5%'

check_rc "--json" 3 "$TRAZA" diff a b --json --fail-on 'shift > 5% and p < 0.01'
check_eq "json: the first row" "work" "$(printf '%s' "$OUT" | json_get rows.0.name)"
check_eq "json: its verdict" "slower" "$(printf '%s' "$OUT" | json_get rows.0.verdict)"
check_eq "json: the failed rows" '["work"]' "$(printf '%s' "$OUT" | json_get failed)"
check_eq "json: every field of a row" \
  "a b count_ratio df failed kind name p p_adj p_holm q rate_df rate_p rate_p_holm rate_q rate_stat rate_test rel_shift shift shift_hi shift_lo stat subsampled test verdict" \
  "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin)["rows"][0])))')"
check_eq "json: a side's fields" "count durations median p90 p99 rate runs samples total" \
  "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin)["rows"][0]["a"])))')"
check_eq "json: a punctual row has no duration test" "None" "$(printf '%s' "$OUT" | python3 -c '
import json,sys; print([r for r in json.load(sys.stdin)["rows"] if r["name"] == "tick"][0]["p"])')"

check_rc "--by producer" 0 "$TRAZA" diff a b --by producer --json
check_eq "rows per type and core, the work rows first" "work @ core0,work @ core1" \
  "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(",".join(sorted(r["name"] for r in json.load(sys.stdin)["rows"][:2])))')"
check_rc "--by function: the states only" 0 "$TRAZA" diff a b --by function --json
check_eq "a calls and a self row per function, no path row (both paths on both sides)" "calls:idle calls:work self:idle self:work" \
  "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(" ".join(sorted(r["kind"] + ":" + r["name"] for r in json.load(sys.stdin)["rows"])))')"
check_eq "json: the tests of one run per side" "mann-whitney binomial" \
  "$(printf '%s' "$OUT" | python3 -c 'import json,sys; r = json.load(sys.stdin)["rows"][0]; print(r["test"], r["rate_test"])')"
check_rc "--top 1" 0 "$TRAZA" diff a b --top 1
check_contains "--top 1 says how many rows are left out" "$OUT" "(2 more rows: --top or --json)"

check_rc "a bad field" 2 "$TRAZA" diff a b --fail-on 'speed > 5%'
check_contains "names the offset and what was found" "$OUT" "expected a field (shift, abs_shift, p, p_holm, q, rate_p, rate_q, count_ratio) at offset 0, found 'speed'"
check_rc "a bad joiner" 2 "$TRAZA" diff a b --fail-on 'p < 0.01 but shift > 5%'
check_contains "names it" "$OUT" "expected 'and', 'or' or the end at offset 9, found 'but'"
check_rc "abs_shift without a unit" 2 "$TRAZA" diff a b --fail-on 'abs_shift > 100'
check_contains "says a unit is needed" "$OUT" "abs_shift expects a time with its unit (2us, 1.5ms), found '100'"
check_rc "one trace only" 2 "$TRAZA" diff a
check_rc "an unknown trace" 1 "$TRAZA" diff a nope
check_rc "a bad --by" 2 "$TRAZA" diff a b --by thread
