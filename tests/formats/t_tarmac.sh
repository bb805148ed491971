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

# calls: main (0x1000) calls f (0x2000, BL) which calls g (0x3000, BLR) and recurses
# into itself; g returns by RET, f by a POP {pc}; a BL whose condition failed is no
# call; a 16-bit Thumb BLX returns 2 bytes after it; reaching the return address of a
# frame further down (a longjmp) closes the frames above it
cat >"$TMP/calls.tarmac" <<'T'
1 clk IT (1) 00001000 94000400 O EL1h_n : BL       0x2000
2 clk IT (2) 00002000 d63f0100 O EL1h_n : BLR      x8
3 clk IT (3) 00003000 d65f03c0 O EL1h_n : RET
4 clk IT (4) 00002004 97fffffe O EL1h_n : BL       0x2000
5 clk IT (5) 00002000 d503201f O EL1h_n : NOP
6 clk IS (6) 00002010 54000041 O EL1h_n : BL.EQ    0x3000
7 clk IT (7) 00002014 e8bd8000 O EL1h_n : POP      {pc}
8 clk IT (8) 00002008 e8bd8000 O EL1h_n : POP      {pc}
9 clk IT (9) 00001004 d503201f O EL1h_n : NOP
10 clk IT (10) 00004000 47a0 T EL1h_n : BLX      r4
11 clk IT (11) 00005000 4770 T EL1h_n : BL       0x6000
12 clk IT (12) 00006000 d503201f O EL1h_n : NOP
13 clk IT (13) 00004002 d503201f O EL1h_n : NOP
14 clk IT (14) 00007000 94000400 O EL1h_n : BL       0x8000
15 clk IT (15) 00008000 d503201f O EL1h_n : NOP
T
check_rc "import a trace of calls" 0 "$TRAZA" import "$TMP/calls.tarmac" --name calls --format tarmac
calls_of() { "$TRAZA" query "$1" --json --limit 0 --regex 'category~state' | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    print(e["ts"], e["end_ts"], e["level"], e["type"])'; }
check_eq "calls: nested by level, each from its first instruction to its return" \
"2 9 0 0x2000
3 4 1 0x3000
5 8 1 0x2000
11 13 0 0x5000
12 13 1 0x6000
15 15 0 0x8000" "$(calls_of calls)"
check_rc "info calls" 0 "$TRAZA" info calls --json
check_eq "calls: found and still open at the end" "6 1" "$(printf '%s' "$OUT" | python3 -c 'import json,sys; p=json.load(sys.stdin)["params"]; print(p["calls.found"], p["calls.open_at_end"])')"

# the HTML report reads a cycle axis in cycles: the density's axis, the durations' bars
check_rc "report of the calls" 0 "$TRAZA" report calls -o "$TMP/calls.html"
check_contains "report: the density's axis in cycles" "$(cat "$TMP/calls.html")" "from the start (cycles)"
check_contains "report: the durations in cycles" "$(cat "$TMP/calls.html")" ' cycles</text>'
if grep -qE '[0-9] (s|ms|us|ns)</text>' "$TMP/calls.html"; then fail "report: no seconds on a cycle axis" "$(grep -oE '[^>]*[0-9] (s|ms|us|ns)</text>' "$TMP/calls.html" | head -3)"
else pass "report: no seconds on a cycle axis"; fi

# with --elf, the functions take their symbols' names
if command -v gcc >/dev/null && command -v nm >/dev/null; then
  printf 'int g(int x) { return x + 1; }\nint f(int x) { return g(x) * 2; }\nint main(void) { return f(1); }\n' >"$TMP/p.c"
  gcc -O0 -g -o "$TMP/p.elf" "$TMP/p.c"
  fa=$(nm "$TMP/p.elf" | awk '$3 == "f" { print $1 }'); ga=$(nm "$TMP/p.elf" | awk '$3 == "g" { print $1 }')
  printf '1 clk IT (1) 00000100 94000400 O EL1h_n : BL 0x%s\n2 clk IT (2) %s 94000400 O EL1h_n : BL 0x%s\n3 clk IT (3) %s d65f03c0 O EL1h_n : RET\n4 clk IT (4) %x d65f03c0 O EL1h_n : RET\n5 clk IT (5) 00000104 d503201f O EL1h_n : NOP\n' \
    "$fa" "$fa" "$ga" "$ga" $((0x$fa + 4)) >"$TMP/sym.tarmac"
  check_rc "import with --elf" 0 "$TRAZA" import "$TMP/sym.tarmac" --name sym --format tarmac --elf "$TMP/p.elf"
  check_eq "--elf: the calls named by their functions" "2 5 0 f
3 4 1 g" "$(calls_of sym)"
else
  skip "--elf names the calls" "gcc or nm is missing"
fi

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
print(" ".join("%s:%d" % (t["name"], t["count"]) for t in sorted(json.load(sys.stdin)["types"], key=lambda t: t["name"]) if t["category"] == "punctual"))')
  check_eq "$b: events per kind equal the file's lines per kind" "$want" "$got"
  # one call per executed BL/BLR/BLX (each returned, or open at the end)
  calls=$(python3 - "$f" <<'PY'
import re, sys
n = 0
for l in open(sys.argv[1]):
    m = re.search(r'\bIT \(\d+\) \S+ \S+ \S+ \S+ :\s*(\S+)', l) or re.search(r'ES\s+\(\S+\) \S+ \S+:\s+(?!CCFAIL)(\S+)', l)
    if m and re.fullmatch(r'BL|BLR|BLX|BLRA[AB]Z?|BLX?(EQ|NE|CS|HS|CC|LO|MI|PL|VS|VC|HI|LS|GE|LT|GT|LE|AL)', m.group(1).upper().split('.')[0]):
        n += 1
print(n)
PY
)
  check_rc "info s_$b" 0 "$TRAZA" info "s_$b" --json
  check_eq "$b: a call found per executed call instruction ($calls)" "$calls" "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["calls.found"])')"
  check_rc "callstack s_$b" 0 "$TRAZA" callstack "s_$b" --json
  check_eq "$b: the call profile counts them" "$calls" "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(sum(f["calls"] for f in json.load(sys.stdin)["profile"]))')"
done
