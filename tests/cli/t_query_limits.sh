#!/usr/bin/env bash
# Query boundaries end to end: a regex that cannot be decided within its limits is an
# error naming it (exit 1), never a count; pages of a regex selection are the right
# rows; a window of one instant. TRAZA_TEST_WORKSPACE runs it on PostgreSQL too.
. tests/lib.sh

a200=$(printf 'a%.0s' $(seq 1 200))
{
  echo "ts,type,producer,s"
  for i in 0 1 2 3 4 5 6 7 8 9; do echo "$i,req,core,$a200!"; done
  for i in 10 11 12 13 14; do echo "$i,req,core,b$i"; done
} > "$TMP/bt.csv"
check_rc "import" 0 "$TRAZA" import "$TMP/bt.csv" --format csv --name bt

limit_msg="regular expression '!|^(a+)+\$' on s could not be evaluated on event 1: match limit exceeded (the limit of 200000 backtracking steps was hit: make the expression simpler or more specific)"
check_rc "backtracking regex count fails" 1 "$TRAZA" query bt --regex 's~!|^(a+)+$' --count
check_eq "backtracking regex count: message, no number" "traza: $limit_msg" "$OUT"
check_rc "backtracking regex listing fails" 1 "$TRAZA" query bt --regex 's~!|^(a+)+$' --csv
check_contains "backtracking regex listing: message" "$OUT" "$limit_msg"
check_rc "negated backtracking regex fails" 1 "$TRAZA" query bt --regex 's!~!|^(a+)+$' --count
check_rc "a decidable regex on the same values" 0 "$TRAZA" query bt --regex 's~!$|^b' --count
check_eq "a decidable regex on the same values: count" 15 "$OUT"

# pages of a regex selection: the rows, not only how many
check_rc "regex page" 0 "$TRAZA" query bt --regex 's~^b1[1-4]$' --offset 1 --limit 2 --csv
check_eq "regex page rows" "id,ts,end_ts,type,category,producer,end_producer,level,value,cpu,params
13,12,,req,punctual,core,,,,,s=b12
14,13,,req,punctual,core,,,,,s=b13" "$OUT"
check_rc "regex last page" 0 "$TRAZA" query bt --regex 's~^b1[1-4]$' --offset 3 --limit 2 --csv
check_eq "regex last page rows" "id,ts,end_ts,type,category,producer,end_producer,level,value,cpu,params
15,14,,req,punctual,core,,,,,s=b14" "$OUT"

# a window whose start equals its end holds the events at that instant only
check_rc "window of one instant" 0 "$TRAZA" query bt --from 12 --to 12 --csv
check_eq "window of one instant rows" "id,ts,end_ts,type,category,producer,end_producer,level,value,cpu,params
13,12,,req,punctual,core,,,,,s=b12" "$OUT"
