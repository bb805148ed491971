#!/usr/bin/env bash
# traza diff on structure. Grammars: PC traces of two builds of a firmware loop that
# differ in one function (g one instruction longer): the cycles through g are reported
# gone and new, first; the cycles through f and h are unchanged; an A/A pair reports
# nothing; a build calling f more often reports its cycles as more. Patterns: a traza
# gen pair where the pattern sendmsg > recvmsg is injected 5 times as often in B.
. tests/lib.sh
# pcs FILE GLEN FEVERY: the main loop (header 0x100) 3000 times: f every FEVERY-th
# iteration, else g (GLEN instructions); h every 5th.
pcs() {
  awk -v glen="$2" -v fe="$3" 'BEGIN { for (i = 0; i < 3000; i++) {
    printf "100\n104\n";
    if (i % fe == 0) for (k = 0; k < 16; k++) printf "%x\n", 512 + 4*k;
    else for (k = 0; k < glen; k++) printf "%x\n", 768 + 4*k;
    if (i % 5 == 0) for (k = 0; k < 8; k++) printf "%x\n", 1024 + 4*k;
    printf "108\n" } }' > "$1"
}
pcs "$TMP/a.pc" 12 3
pcs "$TMP/b.pc" 13 3
pcs "$TMP/c.pc" 12 3
pcs "$TMP/d.pc" 12 2
for x in a b c d; do
  check_rc "compress $x" 0 "$TRAZA" grammar compress "$TMP/$x.pc" -o "$TMP/$x.tzg" --algo cyclitur --loop-header 0x100
done

check_rc "diff a.tzg b.tzg" 0 "$TRAZA" diff "$TMP/a.tzg" "$TMP/b.tzg"
check_eq "the cycles through g first: new in B, gone from A" "new gone new gone" \
  "$(printf '%s\n' "$OUT" | sed -n '4,7p' | awk '{print $NF}' | tr '\n' ' ' | sed 's/ $//')"
check_contains "g's cycle of A (15 instructions) is gone" "$(printf '%s\n' "$OUT" | sed -n 5p)" "A:C1 (length 15)"
check_contains "the cycles through f and h are unchanged" "$OUT" "2 of 6 cycle types unchanged"
check_rc "diff --json" 0 "$TRAZA" diff "$TMP/a.tzg" "$TMP/b.tzg" --json
check_eq "JSON: changed" "4" "$(printf '%s' "$OUT" | json_get changed)"
check_eq "JSON: the unchanged rows keep their counts" "800 800 same; 200 200 same" "$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("; ".join("%d %d %s" % (r["count_a"], r["count_b"], r["verdict"]) for r in d["cycle_types"][4:]))')"

check_rc "an A/A pair of grammars" 0 "$TRAZA" diff "$TMP/a.tzg" "$TMP/c.tzg" --grammar
check_contains "A/A: nothing changed" "$OUT" "4 of 4 cycle types unchanged"
check_rc "f every 2nd iteration" 0 "$TRAZA" diff "$TMP/a.tzg" "$TMP/d.tzg" --json
check_eq "each cycle type's change of frequency" "fewer 1600 1200; more 800 1200; fewer 400 300; more 200 300" \
  "$(printf '%s' "$OUT" | python3 -c '
import json, sys
rows = sorted(json.load(sys.stdin)["cycle_types"], key=lambda r: -r["count_a"])
print("; ".join("%s %d %d" % (r["verdict"], r["count_a"], r["count_b"]) for r in rows))')"
check_rc "--loop-header without grammars" 2 "$TRAZA" diff a b --loop-header 0x100
check_contains "says what it is for" "$OUT" "--loop-header is for grammars"

# patterns: gen pairs with sendmsg > recvmsg on a producer after 1 in 50 (A) or 1 in
# 10 (B) of the punctual0 events
inject() {
  "$TRAZA" gen --events 20000 --seed "$2" --tree 4 --types punctual=4 -o - --format csv | python3 -c '
import sys
every = int(sys.argv[1]); n = 0
for line in sys.stdin:
    sys.stdout.write(line)
    f = line.rstrip("\n").split(",")
    if f[2] == "punctual0":
        n += 1
        if n % every == 0:
            for k, t in ((1, "sendmsg"), (2, "recvmsg")):
                g = list(f); g[0] = str(int(f[0]) + k); g[2] = t
                sys.stdout.write(",".join(g) + "\n")' "$3" > "$1"
}
inject "$TMP/pa.csv" 1 50
inject "$TMP/pb.csv" 2 10
inject "$TMP/pc.csv" 3 50
for x in pa pb pc; do
  check_rc "import $x" 0 "$TRAZA" import "$TMP/$x.csv" --format csv --name "$x"
done
check_rc "diff --pattern" 0 "$TRAZA" diff pa pb --pattern sendmsg,recvmsg --pattern punctual1,punctual2 --json
check_eq "the injected pattern: more, then the other the same" "sendmsg > recvmsg more; punctual1 > punctual2 same" \
  "$(printf '%s' "$OUT" | python3 -c '
import json, sys
print("; ".join(r["pattern"] + " " + r["verdict"] for r in json.load(sys.stdin)["patterns"]))')"
check_rc "diff --patterns" 0 "$TRAZA" diff pa pb --patterns
check_contains "the pairs of consecutive types are searched" "$OUT" "sequence patterns (the most frequent pairs"
check_contains "the injected pattern is found" "$(printf '%s\n' "$OUT" | grep 'sendmsg > recvmsg')" "more"
check_rc "an A/A pair of patterns" 0 "$TRAZA" diff pa pc --patterns --json
check_eq "A/A: no pattern changed" "0" "$(printf '%s' "$OUT" | python3 -c '
import json, sys
print(sum(r["verdict"] != "same" for r in json.load(sys.stdin)["patterns"]))')"
check_rc "a pattern of unknown types" 2 "$TRAZA" diff pa pb --pattern sendmsg,nosuch
check_contains "names the type" "$OUT" "pattern 'sendmsg,nosuch': no event type 'nosuch' in either trace"
