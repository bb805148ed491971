#!/bin/bash
# Tarmac import (src/import/tarmac.c, doc/formats/tarmac.md): every kind of line of the
# three styles (Fast Models, gem5 with its cpu field, the older ES/LD/ST style) with
# its values, continuation lines at their record's time, a line of an unknown kind
# skipped and counted (strict fails), precise errors; then the Tarmac samples of
# ../shared/data, whose counts per kind must equal a regex count of each file.
. "$(dirname "$0")/../lib.sh"

cp "$TRAZA_SRC/fuzz/corpus/tarmac/es.tarmac" "$TMP/es.tarmac"
check_rc "import the ES style" 0 "$TRAZA" import "$TMP/es.tarmac" --name es
check_contains "detected as tarmac" "$OUT" "(tarmac)"
check_eq "the ES style: every line an event, at its record's time" \
"0 exception core text=[0x00] Reset
0 branch core isa=A target=0x0
1 instr core addr=0x100 disasm=MOV      r0,#0x100000 isa=A mode=svc_s opcode=0xe3a00601
1 reg write core reg=R0 value=00100000
2 instr core addr=0x104 disasm=PUSH     {r4,r5,r11,lr} isa=A mode=svc_s opcode=0xe92d4830
2 mem write core addr=0xffff0 attrs=nGnRnE OSH pa=0xffff0 value=0002015c 00000000 ........ 00000000
3 instr core addr=0x108 disasm=LDRB     r1,[r0,#0] isa=A mode=svc_s opcode=0xe5d01000
3 mem read core addr=0x10120 attrs=nGnRnE OSH pa=0x10120 value=........ 3a...... ........ ........
4 instr not executed core addr=0x10c disasm=BEQ      {pc}+0x20 ; 0x12c isa=A mode=svc_s opcode=0xa000006" "$(trace_rows es)"
check_rc "info es" 0 "$TRAZA" info es --json
check_eq "cycles: time counts them (time.axis)" cycles "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["time.axis"])')"
check_eq "the header kept" "Tarmac Text Rev 3t" "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["tarmac.header"])')"
check_rc "info of es" 0 "$TRAZA" info es
check_contains "the CLI prints cycles" "$OUT" "end:         4 (+4 cycles from the start)"

cp "$TRAZA_SRC/fuzz/corpus/tarmac/gem5.tarmac" "$TMP/gem5.tarmac"
check_rc "import the gem5 style" 0 "$TRAZA" import "$TMP/gem5.tarmac" --name g5
check_eq "gem5: one producer per cpu, 128-bit values kept whole" \
"0 instr cpu0 addr=0x2000 disasm=MOVZ   X0, #16, #16 index=1 isa=O mode=EL3h_s opcode=0xd2a00200
0 reg write cpu0 reg=X0 value=0000000000100000
250 instr cpu1 addr=0x2000 disasm=MOVZ   X0, #16, #16 index=1 isa=O mode=EL3h_s opcode=0xd2a00200
500 instr cpu0 addr=0x2004 disasm=STP index=2 isa=O mode=EL3h_s opcode=0xa9be7bfd
500 mem write cpu0 addr=0xfffe0 pa=0xfffe0 size=16 value=00000000000000000000000000002008" "$(trace_rows g5)"

cp "$TRAZA_SRC/fuzz/corpus/tarmac/fastmodel.tarmac" "$TMP/fm.tarmac"
check_rc "import the Fast Models style" 0 "$TRAZA" import "$TMP/fm.tarmac" --name fm
check_eq "Fast Models: signals, exceptions, IS, simulator events" \
"0 signal core text=SIGNAL=Reset STATE=N
0 exception core text=00000000:000000000000 00000000 CoreEvent_Reset
0 reg write core reg=cpsr value=000003cd
1 instr core addr=0x1000 disasm=MOV      x0,#1 index=1 isa=O mode=EL1h_n opcode=0xd2800020
1 reg write core reg=X0 value=0000000000000001
2 instr not executed core addr=0x1004 disasm=B.EQ     {pc}+0x8 ; 0x100c index=2 isa=O mode=EL1h_n opcode=0x54000040
3 instr core addr=0x1008 disasm=STR      x0,[sp,#16] index=3 isa=O mode=EL1h_n opcode=0xf9000be0
3 mem write core addr=0x8010 pa=0x8010 size=8 value=0000000000000001
4 instr core addr=0x100c disasm=LDR      w1,[sp,#24] index=4 isa=O mode=EL1h_n opcode=0xb9401be1
4 mem read core addr=0x8018 pa=0x8018 size=4 value=0000002a
9 simulator event core text=E simulation_stopped" "$(trace_rows fm)"

# a kind not known: skipped, counted, loud; strict fails and leaves nothing
cp "$TRAZA_SRC/fuzz/corpus/tarmac/ns.tarmac" "$TMP/ns.tarmac"
check_rc "a line of an unknown kind is skipped" 0 "$TRAZA" import "$TMP/ns.tarmac" --name ns --format tarmac
check_contains "the skip is said with its count and the kind" "$OUT" "skipped 1 lines of a kind this importer does not know (the first: 'XY')"
check_rc "info ns" 0 "$TRAZA" info ns --json
check_eq "the skip is a trace parameter" 1 "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["skipped.unknown_lines"])')"
check_eq "times in ns: the unit is the file's" -9 "$(printf '%s' "$OUT" | json_get time_unit)"
check_eq "times in ns: no time axis parameter" None "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"].get("time.axis"))')"
check_rc "strict: the skip fails the import" 1 "$TRAZA" import "$TMP/ns.tarmac" --name ns2 --format tarmac --strict
check_rc "strict: nothing was added" 1 "$TRAZA" info ns2
check_rc "--time-unit gives the cycles a unit" 0 "$TRAZA" import "$TMP/gem5.tarmac" --name g5us --time-unit -6
check_rc "info g5us" 0 "$TRAZA" info g5us --json
check_eq "--time-unit -6" -6 "$(printf '%s' "$OUT" | json_get time_unit)"
check_eq "--time-unit: times, not cycles" None "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"].get("time.axis"))')"

# precise errors: file, line, what was expected, what was found
import_fails bad1.tarmac '1 clk IT (1) 00001000 d2800020 O EL1h_n : MOV x0,#1\n2 clk IT (2) zz001004 d2800020 O EL1h_n : MOV x0,#1\n' \
  "bad1.tarmac:2: expected the instruction's address in hexadecimal, found '2 clk IT (2) zz001004" --format tarmac
import_fails bad2.tarmac '          R R0 00000001\n1 clk R R0 2\n' \
  "bad2.tarmac:1: expected a line that starts with its time before this one" --format tarmac
import_fails bad3.tarmac '1 clk R R0 1\n2 ns R R0 2\n' \
  "bad3.tarmac:2: expected the time unit of the first timed line (cycles: clk, tic or cyc), found 'ns'" --format tarmac
import_fails bad4.tarmac '1 clk MR4x 1000 2\n' "bad4.tarmac:1: expected MR<bytes> or MW<bytes>, e.g. MR4" --format tarmac
check_rc "no bad trace was added" 1 "$TRAZA" info bad

# the samples of ../shared/data: counts per kind equal a regex count of the file
dir="$DATA/tarmac"
if [ ! -d "$dir" ]; then
  skip "the Tarmac samples" "$dir is absent"; exit 0
fi
for f in "$dir"/*.tarmac; do
  b=$(basename "$f" .tarmac)
  check_rc "import $b" 0 "$TRAZA" import "$f" --name "s_$b"
  check_contains "$b: detected as tarmac, nothing skipped" "$OUT" "(tarmac)"
  case "$OUT" in *skipped*) fail "$b: nothing skipped" "$OUT" ;; esac
  want=$(python3 - "$f" <<'PY'
import collections, re, sys
c = collections.Counter()
kinds = [('instr not executed', r'(IS \(\d+\)|ES\s+\([0-9a-f]+:[0-9a-f]+\) \S+ \S+\s+CCFAIL)'), ('exception', r'(ES\s+EXC|EXC|E) '),
         ('instr', r'(IT \(\d+\)|ES\s+\()'), ('reg write', r'R '), ('mem read', r'(MR\d+|LD) '), ('mem write', r'(MW\d+|ST) '),
         ('branch', r'BR '), ('signal', r'SIGNAL: '), ('simulator event', r'CADI ')]
for l in open(sys.argv[1]):
    if l.startswith('Tarmac Text') or not l.strip():
        continue
    body = re.sub(r'^\s*(\d+ \w+ (cpu\d+ )?)?', '', l)
    for name, rx in kinds:
        if re.match(rx, body):
            c[name] += 1
            break
    else:
        c['?'] += 1
print(' '.join('%s:%d' % kv for kv in sorted(c.items())))
PY
)
  got=$("$TRAZA" stats "s_$b" --json | python3 -c '
import json, sys
print(" ".join("%s:%d" % (t["name"], t["count"]) for t in sorted(json.load(sys.stdin)["types"], key=lambda t: t["name"])))')
  check_eq "$b: events per kind equal the file's lines per kind" "$want" "$got"
done
