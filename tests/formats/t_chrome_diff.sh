#!/usr/bin/env bash
# Chrome JSON against the JSON itself (the format has no reference tool in Debian):
# for every catapult sample, the states equal its 'X' + 'B' events and the punctual
# events its 'i' 'I' 'R' 'n' 'T' 'p' 'P' 'N' 'D' events plus the entries of "samples",
# the variables the numbers of its 'C' counters' args and of its 'O' snapshots
# (t_chrome_objects.sh), counted by python3's json module.
. "$(dirname "$0")/../lib.sh"

D=$DATA/catapult/tracing-test_data
if [ ! -d "$D" ]; then skip "chrome against its JSON" "$D is absent"; exit 0; fi
i=0
for f in "$D"/*.json "$D"/*.json.gz; do
  base=$(basename "$f")
  i=$((i + 1))
  want=$(python3 - "$f" <<'PY'
import collections, gzip, json, math, sys
p = sys.argv[1]
d = json.load(gzip.open(p, 'rt') if p.endswith('.gz') else open(p))
ev = d if isinstance(d, list) else d['traceEvents']
c = collections.Counter(e.get('ph') for e in ev)
samples = len(d.get('samples', [])) if isinstance(d, dict) else 0
def number(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return math.isfinite(v)
    try:
        return isinstance(v, str) and math.isfinite(float(v))
    except ValueError:
        return False
def leaves(o):  # JSON numbers only, references to other objects (id_ref) left out
    return sum((0 if 'id_ref' in v else leaves(v)) if isinstance(v, dict) else
               (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in o.values())
var = sum(sum(map(number, e['args'].values())) for e in ev if e.get('ph') == 'C' and isinstance(e.get('args'), dict))
var += sum(leaves(e['args']['snapshot']) for e in ev if e.get('ph') == 'O' and isinstance(e.get('args', {}).get('snapshot'), dict))
print(c['X'] + c['B'], sum(c[p] for p in 'iIRnTpPND') + samples, var)
PY
)
  if ! "$TRAZA" import "$f" --name "c$i" >"$TMP/out" 2>&1; then fail "import $base" "$(cat "$TMP/out")"; continue; fi
  got=$("$TRAZA" info "c$i" --json | python3 -c 'import json,sys; c=json.load(sys.stdin)["categories"]; print(c["state"], c["punctual"], c["variable"])')
  check_eq "$base: states, punctual events and variables = the JSON's phases" "$want" "$got"
  if [ "$want" == "$got" ]; then diff_row Chrome "python3 json (phase counts)" "$base" "$(($(tr ' ' + <<<"$want")))" agree
  else diff_row Chrome "python3 json (phase counts)" "$base" "$want vs $got" differ; fi
done
