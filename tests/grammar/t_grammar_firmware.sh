#!/usr/bin/env bash
# Grammar analyses on PC traces of a real program: tests/grammar/fw/startup_loop.c, a
# bare-metal firmware for QEMU's mps2-an385 (a start-up loop of 60 000 iterations, over
# 200 000 instructions, then a main loop of 30 000 that calls a hook placed below it
# and, every 16th time, work), built in three variants that differ in one function,
# each recorded under qemu-system-arm one PC per executed instruction.
# - `--loop-header auto` chooses, over the whole trace, the main loop's header: not the
#   start-up loop (whose cycles leave the main loop as one cycle that never repeats),
#   not the hook it calls; the candidates are printed with their cycle counts.
# - `traza diff A.tzg B.tzg` reports the cycle types the changed function makes
#   new / gone / more / fewer and every other type unchanged, with --elf when the
#   change moved the functions after it.
. "$(dirname "$0")/../lib.sh"
SRC=${TRAZA_SRC:-.}
BOARD=$SRC/rt/boards/mps2-an385
FW=$SRC/tests/grammar/fw/startup_loop.c
if ! command -v arm-none-eabi-gcc >/dev/null || ! command -v qemu-system-arm >/dev/null; then
  skip "firmware PC traces" "gcc-arm-none-eabi or qemu-system-arm missing (scripts/packages.txt)"; exit 0
fi

# record V: builds variant V into $TMP/fwV.elf and records its PCs into $TMP/fwV.pc.
# One instruction per translation block (one-insn-per-tb, -singlestep before QEMU 8.1),
# each block logged as it runs (-d exec, chaining off): "Trace 0: HOST [FLAGS/PC/...] FUNC".
record() {
  arm-none-eabi-gcc -DVARIANT="$1" -mcpu=cortex-m3 -mthumb -O1 -ffreestanding -nostdlib -T "$BOARD/link.ld" \
    "$BOARD/startup.c" "$FW" -o "$TMP/fw$1.elf" || return 1
  local q="timeout 60 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none"
  q="$q -semihosting-config enable=on,target=native -kernel $TMP/fw$1.elf -d exec,nochain -D $TMP/q.log"
  $q -accel tcg,one-insn-per-tb=on 2>/dev/null || $q -singlestep || return 1
  grep '^Trace ' "$TMP/q.log" | cut -d/ -f2 > "$TMP/fw$1.pc"
  rm -f "$TMP/q.log"
}
for v in 0 1 2; do
  check_rc "variant $v builds and runs under qemu-system-arm" 0 record $v
done
# a function's address range in variant V's program: "lo hi", decimal
range() {
  local a s
  read -r a s < <(arm-none-eabi-nm -S "$TMP/fw$1.elf" | awk -v f="$2" '$4 == f { print $1, $2 }')
  [ -n "${a:-}" ] && echo "$((16#$a)) $((16#$a + 16#$s))"
}
within() { local a=$((16#$1)); set -- $(range "$2" "$3"); [ -n "${1:-}" ] && [ "$a" -ge "$1" ] && [ "$a" -lt "$2" ]; }

# ---- --loop-header auto over the whole trace -------------------------------------
# (one PC per instruction: the start-up loop alone fills the first 200 000)
check_eq "the start-up loop runs first: the trace's first 200 000 PCs are start-up" 0 \
  "$(head -200000 "$TMP/fw0.pc" | awk '$1 == "00000180" || $1 == "0000017a"' | wc -l | tr -d ' ')"
check_rc "compress --loop-header auto" 0 "$TRAZA" grammar compress "$TMP/fw0.pc" -o "$TMP/fw0.tzg" --loop-header auto
auto=$OUT
lh=$(printf '%s\n' "$auto" | sed -n 's/^loop header 0x\([0-9a-f]*\)$/\1/p')
if within "$lh" 0 main; then pass "auto chose a header in main's loop (0x$lh)"; else fail "auto chose main's loop" "0x$lh" "$auto"; fi
check_contains "the chosen header cuts the main loop's 30 000 iterations" "$auto" "cycles      30001 ("
chosen=$(printf '%s\n' "$auto" | grep ' chosen')
check_contains "the chosen row: its cycles, distinct cycles, share in repeating cycles" "$chosen" "30001         4      56."
# the start-up loop is listed with its cycles: most of the trace in its one last cycle
startup=$(printf '%s\n' "$auto" | awk '$2 == 60001 { print $1 }' | head -1)
if [ -n "$startup" ] && within "${startup#0x}" 0 calibrate; then pass "the start-up loop is a candidate, ranked below ($startup)"
else fail "the start-up loop is a candidate" "$auto"; fi
check_contains "... its cycles: 43% repeating, 57% in its largest" "$(printf '%s\n' "$auto" | grep "^  $startup ")" "43.4%    56.6%"
hook=$(range 0 idle_hook | awk '{ printf "0x%x", $1 }')
check_contains "the hook the loop calls is no loop header: inside a call" "$auto" "  inside a call"
# main's own addresses (work's entry follows the hook's return by 6 bytes: no call)
bad=$(printf '%s\n' "$auto" | awk '$1 ~ /^0x/ && /inside a call/ { print substr($1, 3) }' | while read -r a; do
  within "$a" 0 main && echo "0x$a"; done)
check_eq "no address of main's own loop is inside a call" "" "$bad"
case "$(printf '%s\n' "$auto" | sed -n '3p')" in *chosen*) pass "the chosen one comes first" ;; *) fail "the chosen one comes first" "$auto" ;; esac
check_eq "the hook (${hook}) is not chosen" "" "$(printf '%s\n' "$chosen" | grep -F "$hook ")"
# the same choice on a grammar compressed without a loop header
check_rc "compress (Sequitur)" 0 "$TRAZA" grammar compress "$TMP/fw0.pc" -o "$TMP/seq.tzg" -q
check_rc "grammar cycles --loop-header auto" 0 "$TRAZA" grammar cycles "$TMP/seq.tzg" --loop-header auto
check_contains "... the same header and cycles" "$OUT" "loop header 0x$lh: 30001 cycles, 4 distinct"

# ---- traza diff on two builds -----------------------------------------------------
for v in 1 2; do
  "$TRAZA" grammar compress "$TMP/fw$v.pc" -o "$TMP/fw$v.tzg" --loop-header auto -q
done
a_main=$(range 0 main | cut -d' ' -f1); b_main=$(range 1 main | cut -d' ' -f1)
if [ "$a_main" != "$b_main" ]; then pass "variant 1 moved main ($a_main -> $b_main)"; else fail "variant 1 moved main" "$a_main"; fi
# rows "verdict count_a count_b length" of a diff's JSON
rows() { python3 -c 'import json,sys
d = json.load(sys.stdin)
print(d["changed"], len(d["cycle_types"]))
for r in d["cycle_types"]: print(r["verdict"], r["count_a"], r["count_b"], r["length"])'; }
sorted() { local x; x=$(cat); printf '%s\n' "$x" | sed -n 1p; printf '%s\n' "$x" | sed 1d | LC_ALL=C sort; }
check_rc "diff of the variants 0 and 1 with their programs" 0 "$TRAZA" diff "$TMP/fw0.tzg" "$TMP/fw1.tzg" \
  --elf "$TMP/fw0.elf" --elf "$TMP/fw1.elf" --json
got=$(printf '%s' "$OUT" | rows)
# work's loop runs 4 times per call, 3 instructions longer: the iteration that calls
# work (1874 times, 44 instructions) is 12 instructions longer, and so is the start-up
# cycle (it runs work(0)); the plain iteration (28125 times, 11 instructions: 6 of
# main, 5 of the hook) and the last cycle (the loop's exit, the return from main, the
# semihosting exit: 15) are unchanged
check_eq "work's change: the cycles that run it gone and new, the others unchanged" "4 6
gone 1 0 300072
gone 1874 0 44
new 0 1 300084
new 0 1874 56
same 1 1 15
same 28125 28125 11" "$(printf '%s\n' "$got" | sorted)"
check_rc "the text table" 0 "$TRAZA" diff "$TMP/fw0.tzg" "$TMP/fw1.tzg" --elf "$TMP/fw0.elf" --elf "$TMP/fw1.elf"
check_contains "... names the loop header by function in both builds" "$OUT" "in A, main+0x"
check_contains "... counts the unchanged types" "$OUT" "2 of 6 cycle types unchanged"
check_rc "without the programs" 0 "$TRAZA" diff "$TMP/fw0.tzg" "$TMP/fw1.tzg" --json
check_eq "... every type differs (the addresses moved)" "0" "$(printf '%s' "$OUT" | rows | grep -c '^same')"
check_rc "diff of the variants 0 and 2" 0 "$TRAZA" diff "$TMP/fw0.tzg" "$TMP/fw2.tzg" --json
got=$(printf '%s' "$OUT" | rows)
# work every 8th iteration: the iteration that calls it 1874 -> 3749 times, the plain
# one 28125 -> 26250; the start-up and last cycles unchanged
check_eq "calling work twice as often: more and fewer, the others unchanged" "2 4
fewer 28125 26250 11
more 1874 3749 44
same 1 1 15
same 1 1 300072" "$(printf '%s\n' "$got" | sorted)"
