#!/usr/bin/env bash
# traza grammar compress --trace: a stored trace as its sequence of event types (also
# rerun on PostgreSQL by t_grammar_trace_pg.sh).
source "$(dirname "$0")/../lib.sh"
"$TRAZA" gen --events 3000 --tree 2x3 --seed 5 -o "$TMP/g.csv" -q
check_rc "import" 0 "$TRAZA" import "$TMP/g.csv" --name g
check_rc "compress --trace" 0 "$TRAZA" grammar compress --trace g -o "$TMP/g.tzg"
check_rc "decompress" 0 "$TRAZA" grammar decompress "$TMP/g.tzg" -o "$TMP/g.seq"
check_eq "one symbol per event" 3000 "$(wc -l <"$TMP/g.seq" | tr -d ' ')"
# the types in time order as the query prints them; symbol ids and names differ, so
# compare the sequence of distinct-symbol first occurrences instead
seq_types=$("$TRAZA" query g --csv --limit 0 | tail -n +2 | cut -d, -f4 | awk '!($0 in m){m[$0]=n++} {print m[$0]}' | md5sum)
seq_syms=$(awk '!($0 in m){m[$0]=n++} {print m[$0]}' "$TMP/g.seq" | md5sum)
check_eq "symbols follow the event types" "$seq_types" "$seq_syms"
p=$("$TRAZA" query g --limit 1 --csv | tail -1 | cut -d, -f6)
check_rc "compress --trace --producer" 0 "$TRAZA" grammar compress --trace g --producer "$p" -o "$TMP/p.tzg"
check_rc "compress --trace unknown producer" 1 "$TRAZA" grammar compress --trace g --producer nosuch -o "$TMP/x.tzg"
check_rc "compress --trace unknown trace" 1 "$TRAZA" grammar compress --trace nosuch -o "$TMP/x.tzg"

# a loop header given by event type name, and named in what is printed
check_rc "compress --trace --loop-header TYPE" 0 "$TRAZA" grammar compress --trace g --loop-header state0 -o "$TMP/lh.tzg"
check_contains "the loop header named in the summary" "$OUT" "loop header state0"
check_rc "cycles" 0 "$TRAZA" grammar cycles "$TMP/lh.tzg"
check_contains "cycles name the loop header" "$OUT" "loop header state0: "
n_named=$(printf '%s' "$OUT" | head -1)
check_rc "cycles of a Sequitur grammar with --loop-header TYPE" 0 "$TRAZA" grammar cycles "$TMP/g.tzg" --loop-header state0
check_eq "the same cycle count either way" "$n_named" "$(printf '%s' "$OUT" | head -1)"
check_contains "stats --json names it" "$("$TRAZA" grammar stats "$TMP/lh.tzg" --json)" '"loop_header_name": "state0"'
check_rc "an unknown type is refused" 2 "$TRAZA" grammar compress --trace g --loop-header nosuch -o "$TMP/x.tzg"
check_contains "saying what it expected" "$OUT" "expected a hexadecimal value, auto, or an event type of 'g'"
