#!/usr/bin/env bash
# Folded stacks (FlameGraph / speedscope collapsed): one line per call stack, weight =
# self time; the weights ending in f sum to f's exclusive time in `traza callstack`.
. tests/lib.sh
# tests/fixtures/callstack/calls.csv: main [0,100] calls a [10,40] (which calls b [20,30]) and b [50,60]; on a second
# thread main [0,50] calls a [5,15]. Self times: main 60+40, a 20+10, main;a;b 10, main;b 10.
check_rc "import nested calls" 0 "$TRAZA" import "$TRAZA_SRC/tests/fixtures/callstack/calls.csv" --format csv --name calls
check_rc "export folded" 0 "$TRAZA" export calls --format folded -o "$TMP/calls.folded"
check_eq "folded stacks and self times" "main 100
main;a 30
main;a;b 10
main;b 10" "$(cat "$TMP/calls.folded")"

exclusive_check() { # NAME TRACE: per-function sums of the folded weights = callstack's exclusive times
  check_rc "$1: export folded" 0 "$TRAZA" export "$2" --format folded -o "$TMP/$2.folded"
  "$TRAZA" callstack "$2" --json --top 1000000 > "$TMP/$2.cs.json"
  check_eq "$1: weights per function = callstack exclusive times" "ok" "$(python3 - "$TMP/$2.cs.json" "$TMP/$2.folded" <<'PY'
import collections, json, sys
ex = {p["name"]: p["exclusive"] for p in json.load(open(sys.argv[1]))["profile"]}
w = collections.Counter()
for line in open(sys.argv[2]):
    stack, n = line.rsplit(" ", 1)
    w[stack.split(";")[-1]] += int(n)
# "?": callstack's name for the unknown parent of a call whose caller the trace lacks
bad = [(f, ex.get(f, 0), w.get(f, 0)) for f in set(ex) | set(w) if f != "?" and ex.get(f, 0) != w.get(f, 0)]
print("ok" if not bad and len(w) > 0 else bad[:5])
PY
)"
}
exclusive_check "nested calls" calls
U=$DATA/uftrace-redisgraph-aarch64/uftrace.data
if [ -d "$U" ]; then
  check_rc "uftrace: import" 0 "$TRAZA" import "$U" --name uf
  exclusive_check "uftrace" uf
else
  skip "uftrace folded stacks" "shared data absent"
fi
