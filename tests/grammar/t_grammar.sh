#!/usr/bin/env bash
# traza grammar: compress/decompress round trips, stats --json, analyses, errors.
. "$(dirname "$0")/../lib.sh"

# the paper's example, one address per line (a=0xa, b=0xb, c=0xc, d=0xd)
printf '%s\n' c a b c a b c a b c a b c a d > "$TMP/paper.pc"
check_rc "compress cyclitur" 0 $TRAZA grammar compress "$TMP/paper.pc" -o "$TMP/p.tzg" --algo cyclitur --loop-header a -q
out=$($TRAZA grammar stats "$TMP/p.tzg" --json)
check_eq "paper Size 11" 11 "$(echo "$out" | json_get size)"
check_eq "paper length" 15 "$(echo "$out" | json_get length)"
check_eq "paper rules" 3 "$(echo "$out" | json_get rules)"
check_eq "paper cycles" 6 "$(echo "$out" | json_get cycles)"
check_eq "paper distinct cycles" 3 "$(echo "$out" | json_get distinct_cycles)"
check_contains "stats comp" "$out" '"comp": 0.733333'
check_rc "compress sequitur" 0 $TRAZA grammar compress "$TMP/paper.pc" -o "$TMP/s.tzg" -q
check_eq "paper Sequitur Size 14" 14 "$($TRAZA grammar stats "$TMP/s.tzg" --json | json_get size)"
check_eq "show" "S -> c R1^4 R2    [15]" "$($TRAZA grammar show "$TMP/p.tzg" | head -1)"
$TRAZA grammar decompress "$TMP/p.tzg" -o "$TMP/p.out"
check_eq "decompress is exact" "$(sed 's/^/0000000/' "$TMP/paper.pc" | md5sum)" "$(md5sum < "$TMP/p.out")"
check_eq "at" "0000000b" "$($TRAZA grammar at "$TMP/p.tzg" 2)"
check_eq "extract" "0000000a 0000000d" "$($TRAZA grammar extract "$TMP/p.tzg" 13 15 | tr '\n' ' ' | sed 's/ $//')"
check_rc "at past the end" 2 $TRAZA grammar at "$TMP/p.tzg" 15
check_contains "at past the end message" "$OUT" "past the end"

# ITF text: the address of each line, whatever commas its operands hold (a comma once
# made the line read as CSV: the first line was taken for a header, the next failed)
printf '%s\n' '0x000103b8 mov.w fp, #0' '0x000103bc mov.w lr, #0' '0x000103c0 pop {r1} mem=0x408008d0' \
  '0x000103c2 push.w {r7, fp, lr} mem=0x408008bc mem=0x408008c0' '0x000103b8 mov.w fp, #0' >"$TMP/t.itf"
check_rc "compress ITF text" 0 $TRAZA grammar compress "$TMP/t.itf" -o "$TMP/itf.tzg" -q
check_eq "ITF text: every line's address" "000103b8 000103bc 000103c0 000103c2 000103b8" \
  "$($TRAZA grammar decompress "$TMP/itf.tzg" | tr '\n' ' ' | sed 's/ $//')"

# a PC list with real-looking addresses: exact round trip, all algorithms, both back ends
python3 - "$TMP/pcs.pc" <<'PY'
import random, sys
random.seed(7)
loop = [0x6a4 + 2*i for i in range(20)]
out = [0x80 + 2*i for i in range(50)]
for k in range(3000):
    out += loop if k % 97 else loop[:5] + [0x3c4 + 2*i for i in range(30)] + loop[5:]
with open(sys.argv[1], "w") as f:
    f.write("".join("%08x\n" % a for a in out))
PY
for algo in sequitur resequitur cyclitur; do
  for be in --xz --zstd; do
    check_rc "compress $algo $be" 0 $TRAZA grammar compress "$TMP/pcs.pc" -o "$TMP/g.tzg" --algo $algo --loop-header 6a4 $be -q
    $TRAZA grammar decompress "$TMP/g.tzg" -o "$TMP/g.out"
    check_eq "round trip $algo $be" "$(md5sum < "$TMP/pcs.pc")" "$(md5sum < "$TMP/g.out")"
  done
done
out=$($TRAZA grammar cycles "$TMP/g.tzg" --json --svg "$TMP/pie.svg")
check_eq "cycles distinct" 3 "$(echo "$out" | json_get distinct_cycles)"
check_contains "pie svg" "$(cat "$TMP/pie.svg")" "<svg"
out=$($TRAZA grammar cycle-time "$TMP/g.tzg" 2 --json --svg "$TMP/strip.svg")
check_eq "cycle-time count" 31 "$(echo "$out" | json_get count)"
check_contains "strip svg" "$(cat "$TMP/strip.svg")" "</svg>"
# compare: the edit script between two cycles, instruction by instruction, with the
# functions of an ELF: a loop over the instructions of two functions where every 7th
# iteration runs one other instruction in place of one, every 11th two more.
cat >"$TMP/fw.c" <<'C'
int f(int x) { for (int i = 0; i < 9; i++) x = x * 3 + i; return x; }
int g(int x) { for (int i = 0; i < 7; i++) x = x * 5 - i; return x; }
int main(void) { return f(1) + g(2); }
C
if cc -O0 -o "$TMP/fw" "$TMP/fw.c" 2>/dev/null; then
  fa=$((0x$(nm "$TMP/fw" | awk '$3 == "f" {print $1}'))); ga=$((0x$(nm "$TMP/fw" | awk '$3 == "g" {print $1}')))
  python3 - "$fa" "$ga" >"$TMP/loop.pc" <<'PY'
import sys
f, g = int(sys.argv[1]), int(sys.argv[2])
out = []
for it in range(200):
    body = [f + k for k in range(0, 40, 2)] + [g + k for k in range(0, 20, 2)]
    if it % 7 == 3:
        body = body[:5] + [g + 4] + body[6:]    # f+10 replaced by g+4
    if it % 11 == 5:
        body = body[:22] + [f + 1, f + 3] + body[22:]
    out += body
print("\n".join("%x" % v for v in out))
PY
  $TRAZA grammar compress -q "$TMP/loop.pc" --algo cyclitur --loop-header "$(printf '%x' "$fa")" -o "$TMP/loop.tzg"
  check_rc "compare two cycles" 0 $TRAZA grammar compare "$TMP/loop.tzg" 1 2 --elf "$TMP/fw"
  check_contains "compare: the counts" "$OUT" "2 edit(s), 1 deleted from C1, 1 inserted"
  check_contains "compare: the deleted instruction, where, by function" "$OUT" "- C1+5 C2+5  f+0xa"
  check_contains "compare: the inserted one" "$OUT" "+ C1+6 C2+5  g+0x4"
  out=$($TRAZA grammar compare "$TMP/loop.tzg" 1 3 --json --elf "$TMP/fw")
  check_eq "compare --json: inserted" 2 "$(echo "$out" | json_get inserted)"
  check_eq "compare --json: deleted" 0 "$(echo "$out" | json_get deleted)"
  check_contains "compare --json: the edits" "$out" '"op": "+", "offset_a": 22, "offset_b": 22, "value": "0x'
  check_contains "compare --json: symbols" "$out" '"symbol": "f+0x1"'
  check_rc "compare a cycle with itself" 0 $TRAZA grammar compare "$TMP/loop.tzg" 2 2
  check_contains "compare: no edits" "$OUT" "0 edit(s)"
else
  skip "grammar compare with an ELF" "no C compiler"
fi

# raw 32-bit stream
python3 -c 'import struct,sys; sys.stdout.buffer.write(b"".join(struct.pack("<I", 0x80000000 + (i % 37) * 4) for i in range(5000)))' > "$TMP/r.bin"
check_rc "compress raw32" 0 $TRAZA grammar compress "$TMP/r.bin" --raw32 -o "$TMP/r.tzg" -q
$TRAZA grammar decompress "$TMP/r.tzg" --raw32 -o "$TMP/r.out"
check_eq "raw32 round trip" "$(md5sum < "$TMP/r.bin")" "$(md5sum < "$TMP/r.out")"
check_rc "raw32 trailing bytes" 1 $TRAZA grammar compress <(printf 'abcde') --raw32 -o "$TMP/x.tzg"
check_contains "trailing message" "$OUT" "trailing byte"

# anomalies: normal C1 C2 C3 repeated, one C1 C1 C2 C2 C3 C3
python3 - "$TMP/an.pc" <<'PY'
import sys
c1, c2, c3 = [0x100, 1, 2], [0x100, 3, 4, 5], [0x100, 6]
seq = []
for k in range(200):
    seq += (c1 + c1 + c2 + c2 + c3 + c3) if k == 120 else (c1 + c2 + c3)
open(sys.argv[1], "w").write("".join("%x\n" % a for a in seq))
PY
$TRAZA grammar compress "$TMP/an.pc" -o "$TMP/an.tzg" --algo cyclitur --loop-header 100 -q
out=$($TRAZA grammar anomalies "$TMP/an.tzg" --json)
# the anomaly starts at cycle 360 (120 * 3) = symbol 120 * 9
check_eq "anomaly ranked first" "C1 C1 C2 C2 C3 C3" "$(echo "$out" | json_get unusual_sequences.0.cycles)"
check_eq "anomaly position" 1080 "$(echo "$out" | json_get unusual_sequences.0.start)"

# the same on a grammar of 3*10^10 symbols, 8*10^9 cycles (never expanded)
if [ -x "$TRAZA_BUILD/helpers/grammar/helper_hugetzg" ]; then
  "$TRAZA_BUILD/helpers/grammar/helper_hugetzg" "$TMP/huge.tzg"
  out=$($TRAZA grammar anomalies "$TMP/huge.tzg" --json)
  check_eq "huge: cycles" 8000000006 "$(echo "$out" | json_get cycles)"
  check_eq "huge: rare transitions" 4 "$(echo "$out" | json_get rare_transitions)"
  check_eq "huge: anomaly ranked first" "C1 C1 C2 C2 C3 C3" "$(echo "$out" | json_get unusual_sequences.0.cycles)"
  check_eq "huge: anomaly position" 15000000000 "$(echo "$out" | json_get unusual_sequences.0.start)"
  check_eq "huge: anomaly end" 15000000020 "$(echo "$out" | json_get unusual_sequences.0.end)"
  check_eq "huge: one span" "" "$(echo "$out" | json_get unusual_sequences.1.start 2>/dev/null)"
  check_rc "huge: cycles table" 0 $TRAZA grammar cycles "$TMP/huge.tzg"
  check_contains "huge: C1 count" "$OUT" "4000000002"
else
  skip "huge grammar" "helper_hugetzg not built"
fi

# auto loop header
check_rc "loop header auto" 0 $TRAZA grammar compress "$TMP/an.pc" -o "$TMP/au.tzg" --algo cyclitur --loop-header auto
check_eq "auto: the candidates listed, 0x100 chosen" "0x100" "$(printf '%s\n' "$OUT" | awk '/ chosen/ { print $1 }')"
check_contains "auto: the chosen one's cycles" "$OUT" "loop header 0x100"

# errors
check_rc "usage: no verb" 2 $TRAZA grammar
check_rc "usage: bad algo" 2 $TRAZA grammar compress "$TMP/paper.pc" -o "$TMP/z.tzg" --algo lzw
check_rc "bad input line" 1 $TRAZA grammar compress <(printf '10\nzz\n') -o "$TMP/z.tzg"
check_contains "bad input message" "$OUT" ":2: expected a hexadecimal address"
head -c 30 "$TMP/p.tzg" > "$TMP/trunc.tzg"
check_rc "truncated tzg" 1 $TRAZA grammar stats "$TMP/trunc.tzg"
check_contains "truncated message" "$OUT" "truncated"
python3 -c 'import sys; d=bytearray(open(sys.argv[1],"rb").read()); d[-3]^=1; open(sys.argv[2],"wb").write(d)' "$TMP/p.tzg" "$TMP/bad.tzg"
check_rc "corrupted tzg" 1 $TRAZA grammar stats "$TMP/bad.tzg"
check_contains "corrupted message" "$OUT" "tzg:"
check_rc "help" 0 $TRAZA grammar --help

# real data: the MCU trace, Cyclitur at least 12% smaller than Sequitur
MCU=$DATA/gen/pc/mcu/freertos_blinky_icount5.pc.xz
if [ -r "$MCU" ]; then
  s=$($TRAZA grammar compress "$MCU" -o "$TMP/m1.tzg" --json | json_get size)
  c=$($TRAZA grammar compress "$MCU" -o "$TMP/m2.tzg" --algo cyclitur --loop-header 6a4 --json | json_get size)
  check_eq "mcu Sequitur Size = reference" 2992 "$s"
  if [ $((c * 100)) -le $((s * 88)) ]; then pass "mcu Cyclitur >= 12% smaller ($c vs $s)"; else fail "mcu Cyclitur smaller" "$c vs $s"; fi
  check_eq "mcu round trip" "$(xz -dc "$MCU" | md5sum)" "$($TRAZA grammar decompress "$TMP/m2.tzg" | md5sum)"
  # the FreeRTOS idle loop: its header 0x6a4 (the target of its backward jump at 0x6fe),
  # not the hook it calls at 0x1e8 (as regular: the same cycles, rotated)
  check_rc "mcu: loop header auto" 0 $TRAZA grammar cycles "$TMP/m1.tzg" --loop-header auto
  check_eq "mcu: auto chooses the idle loop's header" "0x6a4" "$(printf '%s\n' "$OUT" | awk '/ chosen/ { print $1 }')"
  check_contains "mcu: the hook it calls is listed, inside a call" "$OUT" "0x1e8                    116625        11      93.4%     6.6%      100%  inside a call"
else
  skip "mcu trace" "../shared/data is absent"
fi

# show --elf: an x86-64 function at an odd address is that function (bit 0 is the
# Thumb bit on 32-bit ARM only)
if command -v gcc >/dev/null; then
  printf 'char f0(void) { return 0; }\nchar f1(void) { return 1; }\nchar f2(void) { return 2; }\nint main(void) { return f0() + f1() + f2(); }\n' >"$TMP/odd.c"
  gcc -O0 -falign-functions=1 -fno-asynchronous-unwind-tables -o "$TMP/odd" "$TMP/odd.c"
  addr() { nm "$TMP/odd" | awk -v f="$1" '$3 == f {sub(/^0+/, "", $1); print $1}'; }
  f0=$(addr f0); f1=$(addr f1); f2=$(addr f2)
  for _ in $(seq 40); do printf '%s\n%s\n%s\n' "$f0" "$f1" "$f2"; done >"$TMP/odd.pcs"
  check_rc "compress the PCs of an x86-64 program" 0 "$TRAZA" grammar compress "$TMP/odd.pcs" -o "$TMP/odd.tzg"
  check_rc "show --elf" 0 "$TRAZA" grammar show "$TMP/odd.tzg" --elf "$TMP/odd"
  check_contains "each function at its own address, odd or even ($f0 $f1 $f2)" "$OUT" "-> f0 f1 f2"
  strip -o "$TMP/odd.stripped" "$TMP/odd"
  check_rc "show --elf of a stripped program" 1 "$TRAZA" grammar show "$TMP/odd.tzg" --elf "$TMP/odd.stripped"
  check_contains "stripped: said so" "$OUT" "odd.stripped: no symbol table (stripped?)"
else
  skip "show --elf on x86-64" "no gcc"
fi
