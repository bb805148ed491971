#!/usr/bin/env bash
# aggregate --spatial has a p list of its own (bisection over the spatio-temporal
# search) and proposes its p from it; gains and losses are never negative on a Pajé
# simulation trace with large variable values.
. "$(dirname "$0")/../lib.sh"
F=${TRAZA_TEST_DATA:-}/pajeng/ms.trace
if [ ! -f "$F" ]; then skip "spatial p list" "no $F"; exit 0; fi
"$TRAZA" import "$F" --name ms >/dev/null || { fail "import ms"; exit 0; }
J=$("$TRAZA" aggregate ms --slices 20 --model avg-value --spatial --list-p --json --save l)
check_eq "a spatial p list" yes "$(echo "$J" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("yes" if len(d["p_list"]) > 2 and all(e["gain"] >= 0 and e["loss"] >= 0 for e in d["p_list"]) else d)')"
PP=$(echo "$J" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["p_list"][d["proposed"]]["p"])')
J2=$("$TRAZA" aggregate ms --slices 20 --model avg-value --spatial --json --save p)
check_eq "the proposed p is the spatial list's" "$PP" "$(echo "$J2" | json_get p)"
check_eq "no negative part" 0 "$(echo "$J2" | python3 -c 'import json,sys; print(sum(1 for x in json.load(sys.stdin)["parts"] if x["gain"] < 0 or x["loss"] < 0))')"
