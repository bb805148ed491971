#!/usr/bin/env bash
# traza report B --diff A: the structure part of the diff section, on the call-stack
# traces of t_diff_calls.sh (a new baz under foo in B, qux under main only in A): the
# call paths of one run only with their calls, then the sequence patterns whose
# counts changed; an A/A report has no such path; traces without calls say so.
. tests/lib.sh
. tests/cli/diff_calls.sh
import_calls a 1 1000 0
import_calls b 11 1500 1
# structure FILE: the structure block of the report's diff section
structure() { python3 - "$1" <<'PY'
import re, sys
m = re.search(r'<div data-testid="diff-structure">.*?</div>', open(sys.argv[1]).read(), re.S)
print(m.group(0) if m else "")
PY
}
# rows FILE TESTID: the rows of a table of the structure block, cells joined by " | "
rows() { structure "$1" | python3 -c '
import html, re, sys
t = re.search(r"<table class=\"diff\" data-testid=\"%s\">.*?</table>" % sys.argv[1], sys.stdin.read(), re.S)
for r in re.findall(r"<tr class=\"[^\"]*\">(.*?)</tr>", t.group(0) if t else ""):
    print(" | ".join(html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", r)))' "$2"; }

check_rc "report b --diff a" 0 "$TRAZA" report b --diff a -o "$TMP/r.html"
check_contains "report: the structure block is in the diff section" \
  "$(python3 -c 'import re,sys; m = re.search(r"<section data-testid=\"diff\">.*?</section>", open(sys.argv[1]).read(), re.S); print(m.group(0) if m else "")' "$TMP/r.html")" \
  '<div data-testid="diff-structure"><h3>Structure</h3>'
check_eq "report: the call paths of one run only, with their calls" "$(printf '%s\n' 'main;qux | A (base) | 600' 'main;foo;baz | B (new) | 600')" \
  "$(rows "$TMP/r.html" diff-structure-paths)"
check_contains "report: how many paths" "$(structure "$TMP/r.html")" '2 call paths (root;&hellip;;function) run in one of A and B only.'
# the patterns: those of traza diff --patterns --json, the changed ones in its order
check_eq "report: the changed sequence patterns, as traza diff --patterns" \
  "$("$TRAZA" diff a b --patterns --json | python3 -c '
import json, sys
for r in json.load(sys.stdin)["patterns"]:
    if r["verdict"] != "same": print(r["pattern"], r["count_a"], r["count_b"], r["verdict"])')" \
  "$(rows "$TMP/r.html" diff-structure-patterns | awk -F' [|] ' '{print $1, $2, $3, $7}')"
check_contains "report: the pattern bar > baz is new" "$(rows "$TMP/r.html" diff-structure-patterns)" 'bar > baz | 0 | 600 |'

check_rc "report a --diff a (A/A)" 0 "$TRAZA" report a --diff a -o "$TMP/aa.html"
check_contains "report A/A: no path of one run only" "$(structure "$TMP/aa.html")" '<p>Every call path runs in both A and B.</p>'
check_eq "report A/A: no paths table" "" "$(rows "$TMP/aa.html" diff-structure-paths)"
check_contains "report A/A: no pattern changed" "$(structure "$TMP/aa.html")" '): 0 changed.</p>'

check_rc "gen g1" 0 "$TRAZA" gen --name g1 --events 2000 --seed 1 --types punctual=4
check_rc "gen g2" 0 "$TRAZA" gen --name g2 --events 2000 --seed 2 --types punctual=4
check_rc "report g2 --diff g1" 0 "$TRAZA" report g2 --diff g1 -o "$TMP/g.html"
check_contains "report of traces without calls: says there are no paths" "$(structure "$TMP/g.html")" \
  '<p>No calls in these traces: no call paths to compare.</p>'
