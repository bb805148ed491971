#!/usr/bin/env bash
# Type and producer regexes are decided once per type name or producer path and join
# the backend filter (src/store/query.c): the same events, pages and counts as naming
# the matching types or producers, alone, negated, together with --type/--producer,
# with other regexes still applied per event, and when nothing matches.
. "$(dirname "$0")/../lib.sh"
"$TRAZA" gen --events 20k --tree 3x4 --params 1 --seed 5 --name g >/dev/null || { fail "gen"; exit 0; }
names() { # the types (or producer paths) of the trace matching a Python regex, as options
  "$TRAZA" query g --limit 0 --json | python3 -c '
import json, re, sys
col, rx, neg, opt = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
vals = sorted({e[col] for e in json.load(sys.stdin)})
print(" ".join(opt + " " + v for v in vals if bool(re.search(rx, v)) != neg))' "$@"
}
same() { # NAME, the regex query's options, the named query's options
  local name=$1 a=$2 b=$3
  check_eq "$name: page" "$("$TRAZA" query g $b --offset 1234 --limit 50 --csv)" "$("$TRAZA" query g $a --offset 1234 --limit 50 --csv)"
  check_eq "$name: count" "$("$TRAZA" query g $b --count)" "$("$TRAZA" query g $a --count)"
}
same "type regex" "--regex type~^(state|link)" "$(names type '^(state|link)' 0 --type)"
same "negated type regex" "--regex type!~^punctual" "$(names type '^punctual' 1 --type)"
same "type regex and --type" "--regex type~1$ --type state1 --type link0" "--type state1"
same "producer regex" "--regex producer~/n[02]$" "$(names producer '/n[02]$' 0 --producer)"
same "negated producer regex and --producer" "--regex producer!~n1 --producer g0_1 --subtree" "$(names producer '^g0_1/n[^1]' 0 --producer)"
same "both, and a parameter regex per event" "--regex type~^state --regex producer~n3 --regex p0~7" "$(names type '^state' 0 --type) $(names producer 'n3' 0 --producer) --regex p0~7"
check_eq "no type matches: nothing" 0 "$("$TRAZA" query g --regex 'type~^nothing$' --count)"
check_eq "no producer matches: nothing" "" "$("$TRAZA" query g --regex 'producer~^nothing$' --csv | tail -n +2)"
