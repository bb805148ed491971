#!/usr/bin/env bash
# Traced calls in the store: a function's address, file and line are its type's, held
# once, and the calls are packed (doc/store.md), so a call costs a few bytes; conditions and
# exports still see them on every call. Two static functions of one name are two types.
. "$(dirname "$0")/../lib.sh"
P=${TRAZA_BUILD:-build}/rt/tests
if [ ! -x "$P/bench.pre" ]; then skip "traced calls in the store" "test programs not built ($P)"; exit 0; fi
cd "$TMP"

# fib 25: 121 394 calls of two functions
check_rc "record fib 25" 0 "$TRAZA" record --mode stream -q -o fib.tzr --import fib -- "$P/bench.pre" fib 25
n=$("$TRAZA" info fib --json | json_get events)
check_eq "every call imported" 121394 "$n"
bytes=$(du -b "$TRAZA_WORKSPACE"/traces/*.db 2>/dev/null | awk '{s += $1} END {print s + 0}')
if [ "${TRAZA_TEST_BACKEND:-sqlite}" = sqlite ]; then
  per=$((bytes / (${n:-0} > 0 ? n : 1)))
  # 113 B per call while every call carried its function's address, file and line,
  # 32 B in rows once they were the type's; packed (doc/store.md) it is under 16 B
  if [ "$per" -gt 0 ] && [ "$per" -le 16 ]; then pass "the store holds a call in $per bytes (<= 16)"; else fail "the store holds a call in $per bytes (<= 16)"; fi
fi
check_eq "a condition on the file sees every call" "$n" "$("$TRAZA" query fib --where 'file=bench.c' --count)"
check_eq "a condition on the line picks the function" 1 "$("$TRAZA" query fib --where 'line>=13' --count)"
check_eq "a regex on the file sees every call" "$n" "$("$TRAZA" query fib --regex 'file~^bench\.c$' --count)"
row=$("$TRAZA" export fib --format csv -o - | sed -n 3p)
check_contains "exports give each call its function's file and line" "$row" ",fib,state,"
check_contains "exports give each call its function's file and line (params)" "$row" "file=bench.c;line=10"

# two static functions named helper, in a.c and b.c
if ! command -v gcc >/dev/null; then skip "functions of one name" "gcc is missing"; exit 0; fi
cat >a.c <<'C'
static __attribute__((noinline)) int helper(int x) { return x * 2; }
int a_run(int n) { int s = 0; for (int i = 0; i < n; i++) s += helper(i); return s; }
C
sed 's/x \* 2/x + 3/; s/a_run/b_run/' a.c >b.c
printf 'int a_run(int n);\nint b_run(int n);\nint main(void) { volatile int r = a_run(1000) + b_run(500); return r == 0; }\n' >main.c
gcc -g -O1 -pg -mfentry -fno-omit-frame-pointer a.c b.c main.c -o two || fail "compile the two helpers"
check_rc "record the two helpers" 0 "$TRAZA" record -q -o two.tzr --import two -- ./two
prof=$("$TRAZA" callstack two)
check_eq "the first helper keeps its name" 1000 "$(printf '%s\n' "$prof" | awk '$1 == "helper" && $2 ~ /^[0-9]+$/ {print $2}')"
check_eq "the second is told apart by its file" 500 "$(printf '%s\n' "$prof" | awk '$1 == "helper" && $2 == "(b.c)" {print $3}')"
check_eq "each has its own file" 501 "$("$TRAZA" query two --where 'file=b.c' --count)"
check_eq "and its own address" 1000 "$("$TRAZA" query two --type helper --where "addr=$("$TRAZA" query two --type helper --limit 1 -q 2>/dev/null | grep -o 'addr=0x[0-9a-f]*' | head -1 | cut -d= -f2)" --count)"
