#!/usr/bin/env bash
# Chrome JSON against the JSON itself (the format has no reference tool in Debian):
# for every catapult sample, the states equal its 'X' + 'B' events and the punctual
# events its 'i' 'I' 'R' 'n' 'T' 'p' 'P' events plus the entries of "samples", counted
# by python3's json module. chromeos_system_trace.json holds nothing importable and
# fails with its counts (t_chrome_skip.sh).
. "$(dirname "$0")/../lib.sh"

D=$DATA/catapult/tracing-test_data
if [ ! -d "$D" ]; then skip "chrome against its JSON" "$D is absent"; exit 0; fi
i=0
for f in "$D"/*.json "$D"/*.json.gz; do
  base=$(basename "$f")
  [ "$base" == chromeos_system_trace.json ] && continue
  i=$((i + 1))
  want=$(python3 - "$f" <<'PY'
import collections, gzip, json, sys
p = sys.argv[1]
d = json.load(gzip.open(p, 'rt') if p.endswith('.gz') else open(p))
ev = d if isinstance(d, list) else d['traceEvents']
c = collections.Counter(e.get('ph') for e in ev)
samples = len(d.get('samples', [])) if isinstance(d, dict) else 0
print(c['X'] + c['B'], sum(c[p] for p in 'iIRnTpP') + samples)
PY
)
  if ! "$TRAZA" import "$f" --name "c$i" >"$TMP/out" 2>&1; then fail "import $base" "$(cat "$TMP/out")"; continue; fi
  got=$("$TRAZA" info "c$i" --json | python3 -c 'import json,sys; c=json.load(sys.stdin)["categories"]; print(c["state"], c["punctual"])')
  check_eq "$base: states and punctual events = the JSON's phases" "$want" "$got"
  if [ "$want" == "$got" ]; then diff_row Chrome "python3 json (phase counts)" "$base" "$(($(tr ' ' + <<<"$want")))" agree
  else diff_row Chrome "python3 json (phase counts)" "$base" "$want vs $got" differ; fi
done
