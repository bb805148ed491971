#!/bin/bash
# ITF text import (src/import/itf_text.c, doc/formats/itf-text.md): the generated ITF
# and the ITFComp paper's form, every value of a line as a parameter, CCFAIL and
# -noexec as instructions not executed, precise errors; then the ITF samples of
# ../shared/data/gen, whose events equal the lines, CCFAIL lines and mem= tokens.
. "$(dirname "$0")/../lib.sh"


cp "$TRAZA_SRC/fuzz/corpus/itftext/gen.itf" "$TMP/gen.itf"
check_rc "import the generated ITF" 0 "$TRAZA" import "$TMP/gen.itf" --name gen
check_contains "detected as itf" "$OUT" "(itf)"
check_eq "one event per line, its data addresses in order, CCFAIL not executed" \
"0 instr core0 addr=0x1000 disasm=mov.w fp, #0
1 instr core0 addr=0x1004 disasm=pop {r1} mem=0x20000ff0
2 instr core0 addr=0x1006 disasm=push.w {r4, r5, lr} mem=0x20000fe4 mem2=0x20000fe8 mem3=0x20000fec
3 instr not executed core0 addr=0x100a disasm=bne #0x1000
4 instr core0 addr=0x100c disasm=ldrd r4, r1, [sp, #0x3c] mem=0x2000102c mem2=0x20001030" "$(trace_rows gen)"
check_rc "info gen" 0 "$TRAZA" info gen --json
check_eq "the timestamps are instruction indices" instructions "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["time.axis"])')"

cp "$TRAZA_SRC/fuzz/corpus/itftext/paper.itf" "$TMP/paper.itf"
check_rc "import the paper's form" 0 "$TRAZA" import "$TMP/paper.itf" --name paper
check_eq "the paper's form: the text whole, -noexec not executed" \
"0 instr core0 addr=0x10001014 disasm=ldr -res r3 -par r0:0xbe8f3940
1 instr core0 addr=0x10001018 disasm=b -target 0x10001000
2 instr not executed core0 addr=0x1000101c disasm=addeq -noexec -cond
3 instr core0 addr=0x10001020 disasm=str -par r3:0x00000007 r1:0xbe8f3944" "$(trace_rows paper)"

# calls: a BL returns 4 bytes after it, a 16-bit BLX 2 bytes after it; bx lr and
# pop {pc} alike; a conditional call not executed is none
printf '%s\n' '0x00001000 bl #0x2000' '0x00002000 blx r3' '0x00003000 bx lr' '0x00002002 bleq #0x3000 CCFAIL' \
  '0x00002006 pop {r4, pc} mem=0x20000ff8 mem=0x20000ffc' '0x00001004 nop' >"$TMP/calls.itf"
check_rc "import ITF with calls" 0 "$TRAZA" import "$TMP/calls.itf" --name calls
check_eq "the calls: nested, from the first instruction to the return" "1 5 0 0x2000
2 3 1 0x3000" "$("$TRAZA" query calls --json --limit 0 --regex 'category~state' | python3 -c '
import json, sys
for e in json.load(sys.stdin): print(e["ts"], e["end_ts"], e["level"], e["type"])')"

import_fails bad1.itf '0x00001000 mov r0, r1\n0x00001004 ldr r0, [r1] mem=0xzz\n' \
  "bad1.itf:2: expected a data address after mem=0x (1 to 16 hexadecimal digits), found '0x00001004 ldr r0, [r1] mem=0xzz'" --format itf
import_fails bad2.itf '0x00001000 mov r0, r1\nmov r1, r2\n' \
  "bad2.itf:2: expected an instruction's address (0x and hexadecimal digits) and a space at the start of the line, found 'mov r1, r2'" --format itf
check_rc "no bad trace was added" 1 "$TRAZA" info bad
printf '0x00001000\n0x00001004\n' >"$TMP/pcs.txt"
check_rc "addresses alone are a PC trace" 0 "$TRAZA" import "$TMP/pcs.txt" --name pcs
check_contains "detected as pc" "$OUT" "(pc)"

dir="$DATA/gen/samples"
if [ ! -d "$dir" ]; then
  skip "the ITF samples" "$dir is absent"; exit 0
fi
i=0
for f in "$dir"/*.itf.*.txt; do
  i=$((i + 1)); b=$(basename "$f")
  check_rc "import $b" 0 "$TRAZA" import "$f" --name "s$i"
  check_contains "$b: detected as itf" "$OUT" "(itf)"
  want=$(python3 -c '
import sys
n = cc = mem = 0
for l in open(sys.argv[1]):
    if not l.strip(): continue
    n += 1; cc += l.rstrip().endswith(" CCFAIL") or " -noexec" in l; mem += l.count(" mem=0x")
print(n, cc, mem)' "$f")
  got=$("$TRAZA" query "s$i" --json --limit 0 | python3 -c '
import json, sys
ev = [e for e in json.load(sys.stdin) if e["category"] == "punctual"]
print(len(ev), sum(e["type"] == "instr not executed" for e in ev), sum(k.startswith("mem") for e in ev for k in (e.get("params") or {})))')
  check_eq "$b: events, not executed, data addresses equal the file's lines, CCFAIL and mem=" "$want" "$got"
  calls=$(python3 -c '
import re, sys
print(sum(1 for l in open(sys.argv[1]) if re.match(r"0x[0-9a-f]+ (bl|blx)(\.w|\.n)?( |$)", l) and not l.rstrip().endswith(" CCFAIL")))' "$f")
  check_rc "info s$i" 0 "$TRAZA" info "s$i" --json
  check_eq "$b: a call found per executed bl/blx ($calls)" "$calls" "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["calls.found"])')"
done
