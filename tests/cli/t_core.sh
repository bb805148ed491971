#!/usr/bin/env bash
# The core commands end to end: import (csv), list, info, query, stats, density,
# export, filter, results, tools, run, report, rm; exit codes and --json shapes.
. tests/lib.sh

cat > "$TMP/small.csv" <<'CSV'
ts,end,type,producer,cpu,vector,who
0,,irq,cpu0,0,3,timer
5,15,run,cpu0,0,,
10,,irq,cpu1,1,4,uart
20,30,run,cpu1,1,,
25,,irq,cpu0,0,3,timer
40,60,run,cpu0,0,,
CSV

check_rc "import csv" 0 "$TRAZA" import "$TMP/small.csv" --format csv --name small --json
check_eq "import --json name" small "$(printf '%s' "$OUT" | json_get name)"
# the library says the name is taken; the CLI adds its advice
check_rc "import under a taken name" 1 "$TRAZA" import "$TMP/small.csv" --format csv --name small
check_eq "... says so, with the CLI's advice" "traza: a trace named 'small' already exists (choose another with --name, or 'traza rm' it)" "$OUT"
check_rc "info --json" 0 "$TRAZA" info small --json
check_eq "info events" 6 "$(printf '%s' "$OUT" | json_get events)"
check_eq "info categories" '{"link": 0, "punctual": 3, "state": 3, "variable": 0}' "$(printf '%s' "$OUT" | json_get categories)"
check_eq "info min_ts" 0 "$(printf '%s' "$OUT" | json_get min_ts)"
check_eq "info max_ts" 60 "$(printf '%s' "$OUT" | json_get max_ts)"
for k in name events producers event_types min_ts max_ts time_unit categories; do
  printf '%s' "$OUT" | json_get "$k" >/dev/null 2>&1 && pass "info has $k" || fail "info has $k"
done
check_rc "list --json" 0 "$TRAZA" list --json
check_eq "list has one trace" small "$(printf '%s' "$OUT" | json_get 0.name)"

check_rc "query count by type" 0 "$TRAZA" query small --type irq --count
check_eq "three irqs" 3 "$OUT"
check_rc "query window" 0 "$TRAZA" query small --from 10 --to 25 --count
check_eq "events in [10,25]" 3 "$OUT"
check_rc "query overlap" 0 "$TRAZA" query small --from 12 --to 22 --overlap --count
check_eq "intervals overlapping [12,22]" 2 "$OUT"
check_rc "query where" 0 "$TRAZA" query small --where 'vector=3' --json
check_eq "where vector=3 -> 2 events" 2 "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
check_eq "json params" '{"vector": 3, "who": "timer"}' "$(printf '%s' "$OUT" | json_get 0.params)"
check_rc "query regex" 0 "$TRAZA" query small --regex 'producer~cpu1$' --count
check_eq "regex on producer" 2 "$OUT"
check_rc "query negated regex" 0 "$TRAZA" query small --regex 'who!~^ti' --count
check_eq "negated regex" 4 "$OUT"
check_rc "gen a tree" 0 "$TRAZA" gen --name tree --tree 2x3 --events 600 --seed 1
check_rc "query subtree" 0 "$TRAZA" query tree --producer "$("$TRAZA" query tree --limit 1 --json | json_get 0.producer | cut -d/ -f1)" --subtree --count
check_eq "subtree of a root holds half the events" 1 "$(python3 -c "print(int(abs($OUT - 300) < 100))")"
check_rc "query one leaf" 0 "$TRAZA" query tree --producer "$("$TRAZA" query tree --limit 1 --json | json_get 0.producer)" --count
[ "$OUT" -gt 0 ] && [ "$OUT" -lt 300 ] && pass "a leaf holds fewer events" || fail "a leaf holds fewer events" "$OUT"
check_rc "query paging" 0 "$TRAZA" query small --limit 2 --offset 1 --csv
check_eq "csv paging" "id,ts,end_ts,type,category,producer,end_producer,level,value,cpu,params
2,5,15,run,state,cpu0,,,,0,
3,10,,irq,punctual,cpu1,,,,1,vector=4;who=uart" "$OUT"
check_rc "query bad regex" 2 "$TRAZA" query small --regex 'type~(['
check_contains "bad regex message" "$OUT" "regular expression"
check_rc "query unknown type" 1 "$TRAZA" query small --type nosuch
check_contains "unknown type message" "$OUT" "no event type 'nosuch'"
check_rc "query bad time" 2 "$TRAZA" query small --from 3parsecs
check_rc "query no trace" 1 "$TRAZA" query nosuch
check_contains "no trace message" "$OUT" "no trace named 'nosuch'"

check_rc "stats json" 0 "$TRAZA" stats small --json --svg "$TMP/pie.svg"
check_eq "stats total" 6 "$(printf '%s' "$OUT" | json_get total)"
check_eq "stats run duration" 40 "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print([t["duration"] for t in json.load(sys.stdin)["types"] if t["name"]=="run"][0])')"
check_contains "stats svg" "$(cat "$TMP/pie.svg")" "<svg xmlns="
check_rc "stats clipped" 0 "$TRAZA" stats small --from 10 --to 45 --json
check_eq "clipped run duration" 20 "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print([t["duration"] for t in json.load(sys.stdin)["types"] if t["name"]=="run"][0])')"
check_rc "density json" 0 "$TRAZA" density small --slices 4 --json --svg "$TMP/d.svg"
check_eq "density counts" "[3, 2, 1, 0]" "$(printf '%s' "$OUT" | json_get counts)"
# the SVG's bars are the counts: one bar per slice, left to right, its title the count,
# standing on the x axis, its height the count's share of the y axis (the highest
# count reaching the top)
check_eq "density svg bars are the counts" "$(printf '%s' "$OUT" | json_get counts)" "$(python3 - "$TMP/d.svg" <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
x0, top, bottom = map(float, re.search(r'<line x1="([0-9.]+)" y1="([0-9.]+)" x2="\1" y2="([0-9.]+)"', svg).groups())
bars = [tuple(map(float, b[:4])) + (int(b[4]),) for b in
        re.findall(r'<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"><title>([0-9]+)</title></rect>', svg)]
assert [b[0] for b in bars] == sorted(b[0] for b in bars) and bars[0][0] == x0, bars
most = max(b[4] for b in bars)
for x, y, w, h, c in bars:
    assert abs(y + h - bottom) < 0.01 and abs(h - (bottom - top) * c / most) < 0.01, (x, y, h, c, top, bottom)
print([b[4] for b in bars])
PY
)"
check_rc "density bad slices" 2 "$TRAZA" density small --slices 0

check_rc "export csv" 0 "$TRAZA" export small --format csv -o "$TMP/out.csv"
check_eq "export csv rows" 7 "$(wc -l < "$TMP/out.csv")"
check_rc "export unknown format" 2 "$TRAZA" export small --format nosuch -o "$TMP/x"
[ ! -e "$TMP/x" ] && pass "failed export leaves no file" || fail "failed export leaves no file"

check_rc "filter saves a set" 0 "$TRAZA" filter small --type irq --from 5 --name late-irqs --json
check_eq "filter size" 2 "$(printf '%s' "$OUT" | json_get size)"
check_rc "producer activity" 0 "$TRAZA" filter small --active --from 16 --to 21 --name busy
check_rc "results list" 0 "$TRAZA" results small --json
check_eq "results kinds" "event_set producer_set" "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(" ".join(r["kind"] for r in json.load(sys.stdin)))')"
check_rc "results show" 0 "$TRAZA" results small show busy --json
check_eq "busy producers" '["cpu1"]' "$(printf '%s' "$OUT" | json_get members)"
check_rc "query --set" 0 "$TRAZA" query small --set late-irqs --count
check_eq "query restricted to a set" 2 "$OUT"
check_rc "tools json" 0 "$TRAZA" tools --json
check_contains "tools lists filter" "$OUT" '"name":"filter"'
check_contains "tools lists importers" "$OUT" '"name":"import-csv"'
# the example plugin, loaded by the binary: it resolves the public API the binary
# exports (src/cli/exports.list), runs, and its annotations are saved
if [ -f "$TRAZA_BUILD/plugins/category_count.so" ]; then
  check_rc "plugin: listed by tools" 0 env TRAZA_PLUGIN_PATH="$TRAZA_BUILD/plugins" "$TRAZA" tools --json
  check_contains "plugin: category-count is a tool" "$OUT" '"name":"category-count"'
  check_rc "plugin: runs" 0 env TRAZA_PLUGIN_PATH="$TRAZA_BUILD/plugins" "$TRAZA" run category-count small --json
  check_rc "plugin: its annotations are a result" 0 "$TRAZA" results small --json
  check_contains "plugin: result saved" "$OUT" '"name":"category-count"'
else
  skip "plugin: the example plugin" "$TRAZA_BUILD/plugins/category_count.so not built"
fi
# plugins are loaded by the commands that use tools only: a broken one is reported by
# `tools`, and `list` never opens it
mkdir -p "$TMP/badplug" && printf 'not an ELF file' >"$TMP/badplug/broken.so"
check_rc "broken plugin: tools still runs" 0 env TRAZA_PLUGIN_PATH="$TMP/badplug" "$TRAZA" tools
check_contains "broken plugin: tools reports it" "$OUT" "broken.so"
check_rc "broken plugin: list runs" 0 env TRAZA_PLUGIN_PATH="$TMP/badplug" "$TRAZA" list
case "$OUT" in *broken.so*) fail "broken plugin: list does not load plugins" "output: $OUT" ;;
  *) pass "broken plugin: list does not load plugins" ;; esac
check_rc "run filter tool" 0 "$TRAZA" run filter small --name via-run --type run --json
check_eq "run filter result" 3 "$(printf '%s' "$OUT" | json_get size)"
check_rc "run with a bad option" 2 "$TRAZA" run filter small --bogus 1
check_contains "bad option message" "$OUT" "unknown option '--bogus'"
# A result's name is the user's: the JSON that names it escapes it.
odd='q"uote\back'
check_rc "filter: a name with a quote and a backslash" 0 "$TRAZA" filter small --type run --name "$odd" --json
check_eq "... its JSON gives the name back" "$odd" "$(printf '%s' "$OUT" | json_get result)"
check_rc "... removed" 0 "$TRAZA" results small rm "$odd"
check_rc "run filter: the same name" 0 "$TRAZA" run filter small --type run --name "$odd" --json
check_eq "... its JSON gives the name back" "$odd" "$(printf '%s' "$OUT" | json_get result)"
check_rc "... removed" 0 "$TRAZA" results small rm "$odd"
result_names() { "$TRAZA" results small --json | python3 -c 'import json,sys; print(" ".join(sorted(r["name"] for r in json.load(sys.stdin) if r["name"] != "category-count")))'; }
check_eq "results before rm" "busy late-irqs via-run" "$(result_names)"
check_rc "results rm" 0 "$TRAZA" results small rm via-run
check_eq "results rm removes that result only" "busy late-irqs" "$(result_names)"
check_rc "results rm of a removed result" 1 "$TRAZA" results small rm via-run
check_rc "report" 0 "$TRAZA" report small -o "$TMP/r.html"
check_contains "report is html with svg" "$(cat "$TMP/r.html")" "<svg xmlns="

check_rc "usage: no command" 2 "$TRAZA"
check_rc "usage: unknown command" 2 "$TRAZA" frobnicate
for c in import list info rm query stats density export tools run results filter report; do
  check_rc "help $c" 0 "$TRAZA" help "$c"
  check_rc "$c --help" 0 "$TRAZA" "$c" --help
done
check_rc "rm" 0 "$TRAZA" rm small
check_rc "info after rm" 1 "$TRAZA" info small
