#!/usr/bin/env bash
# Parameter filters against fixed-column filters of the same trace (2 M generated
# events, 2 parameters per event): a selective parameter condition (2 matches) against
# a type + producer filter (the (type, producer) index), and an unselective one (all
# events) against a type filter that keeps them all (every type named). Prints the
# times and ratios. Then filtered deep paging: the page of 100 events at offset
# 700,000 of a type regex, against the same page of the same types named.
# usage: bash bench/param_query.sh [build/traza]
set -euo pipefail
traza=$(realpath "${1:-build/traza}")
ws=$(mktemp -d /tmp/traza-bench-pq-XXXXXX)
trap 'rm -rf "$ws"' EXIT
export TRAZA_WORKSPACE=$ws
"$traza" gen --events 2M --tree 10x10 --params 2 --seed 3 --name g2m >/dev/null
best() { # best of 5 wall times in ms
  local b=""; for _ in 1 2 3 4 5; do
    s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); t=$(( (e - s) / 1000 ))
    [ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t; done; echo "$b"; }
p_sel=$(best "$traza" query g2m --where 'p0=750731' --count)
f_sel=$(best "$traza" query g2m --type state3 --producer g0_0/n9 --count)
p_all=$(best "$traza" query g2m --where 'p0>5' --count)
all_types=$("$traza" query g2m --limit 0 --json | python3 -c 'import json,sys; print(" ".join(sorted({"--type " + e["type"] for e in json.load(sys.stdin)})))')
f_all=$(best "$traza" query g2m $all_types --count)
echo "selective:   --where p0=750731 $((p_sel / 1000)).$(( (p_sel % 1000) / 100 )) ms; --type --producer $((f_sel / 1000)).$(( (f_sel % 1000) / 100 )) ms; ratio $(python3 -c "print(f'{$p_sel/$f_sel:.2f}')")"
echo "unselective: --where p0>5 $((p_all / 1000)) ms; --type (every type) $((f_all / 1000)) ms; ratio $(python3 -c "print(f'{$p_all/$f_all:.2f}')")"
types5=$("$traza" query g2m --limit 0 --json | python3 -c 'import json,sys; t=sorted({e["type"] for e in json.load(sys.stdin)}); print(" ".join("--type " + x for x in t[:len(t) // 2]))')
re5=$("$traza" query g2m --limit 0 --json | python3 -c 'import json,sys; t=sorted({e["type"] for e in json.load(sys.stdin)}); print("type~^(" + "|".join(t[:len(t) // 2]) + ")$")')
p_page=$(best "$traza" query g2m --regex "$re5" --offset 700000 --limit 100)
f_page=$(best "$traza" query g2m $types5 --offset 700000 --limit 100)
echo "deep page:   --regex '$re5' --offset 700000 $((p_page / 1000)) ms; the same types named $((f_page / 1000)) ms; ratio $(python3 -c "print(f'{$p_page/$f_page:.2f}')")"
